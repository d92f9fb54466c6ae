"""The compiled rules agree move for move with independent implementations."""
from collections import Counter

import pytest

from tabula.games import get_game, rule_sets, ur
from tests.crosscheck import REFERENCE, disagreements, mixed_positions, reference_moves
from tests.royalur_bridge import royalur_moves

N_POSITIONS = 20_000


def ur_move_kinds(game, codes):
    """Counts of the Ur situations the sample exercises."""
    kinds = Counter()
    for code in codes:
        p = game.to_json(int(code))
        for throw in game.throws:
            moves = game.legal_moves(int(code), int(throw))
            kinds["pass"] += not moves
            for m in moves:
                kinds["entry"] += m["from"] == 0
                kinds["bear off"] += game.presentation.square_label(m["to"]) == "off"
                kinds["rosette again"] += m["again"]
                kinds["win"] += m["over"]
                after = game.to_json(m["position"])
                their_waiting = after["opp_waiting"] if m["again"] else after["me_waiting"]
                kinds["capture"] += their_waiting > p["opp_waiting"]
            kinds["safe rosette blocks"] += 8 in p["opp"] and (8 - throw) in p["me"]
    return kinds


def senet_move_kinds(game, codes):
    kinds = Counter()
    for code in codes:
        p = game.to_json(int(code))
        for throw in game.throws:
            moves = game.legal_moves(int(code), int(throw))
            kinds["forfeit"] += not moves
            for m in moves:
                kinds["backward"] += m["to"] < m["from"]
                kinds["drown"] += m["from"] == 26 and throw == 1
                kinds["bear off"] += m["to"] == 31
                kinds["win"] += m["over"]
                kinds["swap"] += m["to"] in p["opp"]
    return kinds


@pytest.mark.slow
@pytest.mark.parametrize("name,rules", [(name, rules) for name in sorted(REFERENCE)
                                        for rules in rule_sets(name)])
def test_fast_rules_agree_with_reference(name, rules):
    game = get_game(name, rules=rules)
    codes = mixed_positions(game, N_POSITIONS, seed=11)
    assert len(codes) == N_POSITIONS
    assert disagreements(game, codes, reference_moves(game)) == []


@pytest.mark.slow
@pytest.mark.parametrize("rules", ["finkel", "masters", "blitz"])
def test_ur_agrees_with_royalur(rules):
    game = get_game("ur", rules=rules)
    codes = mixed_positions(game, N_POSITIONS, seed=12)
    assert disagreements(game, codes, royalur_moves(game.pieces, ur.RULE_SETS[rules])) == []
    kinds = ur_move_kinds(game, codes[:3000])
    expected = ["entry", "capture", "rosette again", "bear off", "win"]
    expected += ["pass", "safe rosette blocks"] if rules == "finkel" else []
    for kind in expected:
        assert kinds[kind] > 0, kinds


def test_senet_sample_covers_special_moves():
    game = get_game("senet")
    kinds = senet_move_kinds(game, mixed_positions(game, 3000, seed=11))
    for kind in ("forfeit", "backward", "drown", "bear off", "win", "swap"):
        assert kinds[kind] > 0, kinds
