"""Rule sets as data: Ur takes its rules as a settings object, a rule set registered
only in the tests (tests/conftest.py: "tiny", two coins, no safe rosette, a capture
throws again) plays, solves and goes through the chain, and every file records its
rule set and refuses to meet one of other rules."""
import json
import re

import numpy as np
import pytest

from tabula.cli import main
from tabula.datagen.datafile import DataFile
from tabula.runtime.model_file import OnnxValueModel
from tabula.games import PositionError, get_game, rule_sets, ur
from tabula.games.ur import UrRules
from tabula.solver.reference import reference_solve
from tabula.solver.solution import open_solution
from tests.crosscheck import disagreements, mixed_positions, reference_moves
from tests.royalur_bridge import ROYALUR_PATHS


def test_a_rule_set_is_settings_with_its_throws():
    finkel, masters_dice = UrRules("finkel"), UrRules("x", dice=3, zero_counts_as=4)
    assert finkel.throws()[0].tolist() == [0, 1, 2, 3, 4]
    assert finkel.throws()[1].tolist() == [1 / 16, 4 / 16, 6 / 16, 4 / 16, 1 / 16]
    assert masters_dice.throws()[0].tolist() == [1, 2, 3, 4]          # a 0 counts as 4
    assert masters_dice.throws()[1].tolist() == [3 / 8, 3 / 8, 1 / 8, 1 / 8]
    tiny = get_game("ur", rules="tiny")
    assert (tiny.rules, tiny.pieces, tiny.throws.tolist()) == ("tiny", 2, [0, 1, 2])
    assert rule_sets("ur")[0] == "finkel" and get_game("ur").rules == "finkel"
    with pytest.raises(PositionError, match="no rule set 'nope'"):
        get_game("ur", 3, "nope")
    with pytest.raises(PositionError, match="no path 'murray'"):
        UrRules("m", path="murray").check()


@pytest.mark.parametrize("rules", ["finkel", "masters", "blitz", "tiny"])
def test_moves_equal_the_reference_under_each_rule_set(rules):
    game = get_game("ur", 2, rules)
    assert disagreements(game, mixed_positions(game, 4000, seed=3), reference_moves(game)) == []


@pytest.mark.parametrize("path", ["bell", "masters"])
def test_the_paths_are_royalurs(path):
    """Each track, tile by tile, is royalur's path pair (its tile (x, y): x = 1 is
    light's row, y = 1..8 along the board; ours (row, col): row 2 is light's row),
    and the rule sets are royalur's settings."""
    pair = ROYALUR_PATHS[path].create_path_pair()
    ours = ur.PATHS[path]
    as_ours = [[(3 - tile.x, tile.y - 1) for tile in track] for track in (pair.light, pair.dark)]
    assert as_ours[0] == list(ours.tiles)
    assert as_ours[1] == [ours.dark_tile(s) for s in range(1, ours.track + 1)]


def test_masters_is_royalurs_masters_with_its_three_dice():
    """royalur 0.0.6's create_masters() is our Masters in path, pieces and switches; it
    keeps four binary dice, where RoyalUr.net's Masters (and the issue's table) throw
    three with a 0 counting as 4: the published start value 0.504809002027 is of the
    three dice, and our table gives it (docs/BENCHMARKS.md)."""
    from royalur.model import GameSettings
    theirs, ours = GameSettings.create_masters(), ur.RULE_SETS["masters"]
    assert theirs.paths == ROYALUR_PATHS[ours.path].create_path_pair()
    assert (theirs.starting_piece_count, theirs.safe_rosettes,
            theirs.rosettes_grant_extra_rolls, theirs.captures_grant_extra_rolls) == \
        (ours.pieces, ours.safe_rosettes, ours.again_on_rosette, ours.again_on_capture)
    assert (ours.dice, ours.zero_counts_as) == (3, 4)


def test_the_rules_change_the_moves():
    """Throws of 2. Light on 6, dark on the middle rosette (8): Finkel's rosette is safe
    (no move from 6), tiny's is not (a capture). Light on 5, dark on 7: a capture under
    both, but only under tiny does it give another throw."""
    finkel, tiny = get_game("ur", 2), get_game("ur", 2, "tiny")

    def move_from(game, me, opp):
        code = game.position_from_json({"me": [me], "me_waiting": 1, "opp": [opp],
                                        "opp_waiting": 1})
        return next((m for m in game.legal_moves(code, 2) if m["from"] == me), None)

    assert move_from(finkel, 6, 8) is None and move_from(tiny, 6, 8)["to"] == 8
    assert not move_from(finkel, 5, 7)["again"] and move_from(tiny, 5, 7)["again"]


@pytest.fixture(scope="module")
def tiny_chain(tmp_path_factory):
    folder = tmp_path_factory.mktemp("tiny")
    table, data = folder / "t.h5", folder / "d.h5"
    assert main(["solve", "ur", "--rules", "tiny", "--out", str(table), "--quiet"]) == 0
    assert main(["datagen", "ur", "--rules", "tiny", "--table", str(table), "--out",
                 str(data), "--games", "200", "--uniform", "3000", "--quiet"]) == 0
    return folder, table, data


def test_the_tiny_rules_solve_exactly_and_are_recorded(tiny_chain):
    folder, table_path, data_path = tiny_chain
    table = open_solution(table_path)
    assert (table.game.rules, table.game.pieces, table.attrs["rules"]) == ("tiny", 2, "tiny")
    exact = reference_solve(table.game)
    for layer in table.layers:
        assert np.abs(table.layer(*layer) - exact[layer]).max() <= 1e-7, layer
    data = DataFile(data_path)
    assert data.game.rules == "tiny" and data.attrs["rules"] == "tiny"


def test_files_of_other_rules_are_refused(tiny_chain, tables, capsys):
    folder, table_path, data_path = tiny_chain
    assert main(["value", "ur", "--rules", "finkel", "--table", str(table_path),
                 "--position", "start"]) == 2
    assert "not of finkel rules" in capsys.readouterr().err
    finkel3 = str(tables[("ur", 3)].path)
    assert main(["value", "ur", "--rules", "tiny", "--table", finkel3, "--position",
                 "start"]) == 2
    assert "not of tiny rules" in capsys.readouterr().err
    assert main(["value", "ur", "--rules", "tiny", "--table", str(table_path),
                 "--position", "start", "--json"]) == 0
    assert 0 < float(capsys.readouterr().out.split(":")[1].strip(" }\n")) < 1


def test_the_chain_carries_the_rules_to_the_model(tiny_chain, tmp_path, capsys):
    folder, table_path, data_path = tiny_chain
    assert main(["train", "--data.path", str(data_path), "--model.hidden", "[8]",
                 "--trainer.max_epochs", "1", "--trainer.default_root_dir",
                 str(tmp_path / "run"), "--trainer.enable_progress_bar", "false"]) == 0
    ckpt = tmp_path / "run" / "version_0" / "checkpoints" / "best.ckpt"
    model_path = tmp_path / "m.onnx"
    assert main(["export", str(ckpt), "--out", str(model_path)]) == 0
    model = OnnxValueModel(model_path)
    assert model.game.rules == "tiny" and model.metadata["tabula.rules"] == "tiny"
    assert model.read_manifest()["rules"] == "tiny"
    capsys.readouterr()
    assert main(["eval", "regret", "ur", "--rules", "tiny", "--table", str(table_path),
                 "--player", f"net:{model_path}", "--games", "50", "--json", "--quiet"]) == 0


def solve_the_reference_rules(rules, pieces):
    """Winning chances of every position reachable from the start, by value iteration
    over the moves of tests/reference/ur_rules.py (nothing of the compiled game)."""
    from tests.reference.ur_rules import legal_moves, rule_switches
    switches = rule_switches(rules)
    throws, probs = rules.throws()
    start = (frozenset(), pieces, frozenset(), pieces)
    order, seen, options = [start], {start}, {}
    for state in order:
        options[state] = [(p, legal_moves(state, int(t), **switches))
                          for t, p in zip(throws, probs)]
        passed = (state[2], state[3], state[0], state[1])
        for nxt in [passed] + [n for _, moves in options[state] for n, _, over in moves
                               if not over]:
            if nxt not in seen:
                seen.add(nxt)
                order.append(nxt)
    value = dict.fromkeys(order, 0.5)
    change = 1.0
    while change > 1e-10:
        change = 0.0
        for state in order:
            new = 0.0
            for p, moves in options[state]:
                if not moves:
                    new += p * (1 - value[(state[2], state[3], state[0], state[1])])
                else:
                    new += p * max(1.0 if over else value[n] if again else 1 - value[n]
                                   for n, again, over in moves)
            change = max(change, abs(new - value[state]))
            value[state] = new
    return value


@pytest.mark.parametrize("rules,pieces", [
    ("masters", 1), pytest.param("masters", 2, marks=pytest.mark.slow),
    pytest.param("blitz", 2, marks=pytest.mark.slow)])
def test_the_table_equals_a_solve_of_the_reference_rules(rules, pieces, tmp_path):
    game = get_game("ur", pieces, rules)
    assert main(["solve", "ur", "--rules", rules, "--pieces", str(pieces), "--out",
                 str(tmp_path / "t.h5"), "--quiet"]) == 0
    table = open_solution(tmp_path / "t.h5")
    exact = solve_the_reference_rules(ur.RULE_SETS[rules], pieces)
    codes = [game.position_from_json({"me": sorted(me), "me_waiting": mw, "opp": sorted(opp),
                                      "opp_waiting": ow}) for me, mw, opp, ow in exact]
    assert len(exact) > 1000 * (pieces - 1) + 100
    assert np.abs(table.values(codes) - np.array(list(exact.values()))).max() <= 1e-6


def test_a_variant_is_one_value_written_as_one_string(capsys):
    """games.game.Variant: ur(rules=masters,pieces=7) names a variant in messages, and
    GAME takes it on every command; what it leaves out is the game's default, and a
    --rules or --pieces that disagrees with it is one line."""
    from tabula.games import parse_variant
    game = get_game("ur", 7, "masters")
    assert str(game.variant) == game.describe() == "ur(rules=masters,pieces=7)"
    assert parse_variant(str(game.variant)).variant == game.variant
    assert parse_variant("ur(pieces=3)").variant == get_game("ur", 3).variant
    assert parse_variant("einstein(rules=3x3)").pieces == 3   # the rule set's default
    for bad, said in (("ur(pieces=3", "GAME(rules=NAME,pieces=N)"),
                      ("ur(colour=red)", "rules=NAME and pieces=N"),
                      ("ur(pieces=3,pieces=4)", "each once"),
                      ("ur(pieces=²)", "ur takes pieces 1..7, not '²'"),
                      ("ur(pieces=99)", "ur takes pieces 1..7, not '99'"),
                      ("ur(rules=nope)", "no rule set 'nope'")):
        with pytest.raises(PositionError, match=re.escape(said)):
            parse_variant(bad)
    assert main(["moves", "ur(rules=blitz,pieces=3)", "--position", "start", "--throw", "2",
                 "--json"]) == 0
    blitz = json.loads(capsys.readouterr().out)
    assert main(["moves", "ur", "--rules", "blitz", "--pieces", "3", "--position", "start",
                 "--throw", "2", "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == blitz
    assert main(["moves", "ur(pieces=3)", "--pieces", "4", "--position", "start",
                 "--throw", "2"]) == 2
    assert "names pieces=3, but --pieces says 4" in capsys.readouterr().err
