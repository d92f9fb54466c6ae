"""Backgammon bear-offs (games/bearoff.py, solver/two_sided.py, solver/one_sided.py):
the rules' test vectors and closed forms, a reference written from the rules text,
and GNU Backgammon's own bear-off databases (the `gnubg` package's data files)."""
import dataclasses
import json
import os
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

from tabula.games import bearoff, get_game
from tabula.solver.one_sided import throws_to_bear_off
from tabula.solver.race_table import RaceTable, solve_race
from tabula.solver.two_sided import solve_two_sided

from tests.bearoff_reference import plays, rolls_distribution, solver

GNUBG_UNIT = 1 / 32767.5    # gnubg stores equities as 16 bits: value / 32767.5 - 1


def side(counts):
    return bearoff.side_from_counts(counts)


def at(values, game, me, opp):
    i, j = (game.race.side_index(side(c)) for c in (me, opp))
    return {name: float(v[i, j]) for name, v in values.items()}


@pytest.fixture(scope="module")
def three():
    game = get_game("bearoff", 3)
    return game, solve_two_sided(game, quiet=True)


def test_rules_vectors(three):
    game, values = three
    for point in (1, 2, 3):
        for opp in ([1, 0, 0, 0, 0, 0], [0, 0, 0, 0, 0, 3]):
            assert at(values, game, [int(p == point) for p in range(1, 7)], opp)["win"] == 1
    for point, wins in ((4, 34), (5, 31), (6, 27)):
        me = [int(p == point) for p in range(1, 7)]
        assert at(values, game, me, [1, 0, 0, 0, 0, 0])["win"] == pytest.approx(wins / 36, abs=1e-7)


def test_single_checkers_closed_form(three):
    """One checker each on 6: the roller wins at once with 27/36; otherwise (9/36) the
    opponent, on 6 too, fails with 9/36 and the roller's checker, then on 1 to 3, is off."""
    game, values = three
    expected = Fraction(27, 36) + Fraction(9, 36) * Fraction(9, 36)
    got = at(values, game, [0, 0, 0, 0, 0, 1], [0, 0, 0, 0, 0, 1])["win"]
    assert got == pytest.approx(float(expected), abs=1e-7)


def test_last_roll_cube_actions(three):
    """The opponent bears off next roll for sure (one checker on 1): the roller's
    equity is 2p - 1 whatever the cube; doubling gains when p > 1/2 and the opponent
    passes from p = 3/4 on (a take would cost 2(2p - 1) >= 1)."""
    game, values = three
    table = RaceTable.__new__(RaceTable)       # the answers of an in-memory table
    table.game, table.arrays = game, values
    for index in range(1, game.race.n_sides(3)):
        me = game.race.side_of_index(index)
        p = sum(float(Fraction(1 if a == b else 2, 36)) for a, b in
                [(a, b) for a in range(1, 7) for b in range(1, a + 1)]
                if (0, 0, 0, 0, 0, 0) in plays(tuple(bearoff.side_counts(me)), (a, b)))
        code = me | (side([1, 0, 0, 0, 0, 0]) << bearoff.SIDE_BITS)
        answer = table.answer(code)
        assert answer["win"] == pytest.approx(p, abs=1e-6)
        for name in ("centered", "owned", "unavailable"):
            assert answer["equity_no_double"][name] == pytest.approx(2 * p - 1, abs=1e-6)
        if abs(p - 0.5) < 1e-9 or abs(p - 0.75) < 1e-9:
            continue     # ties: either action gives the same equity
        expected = ("no double" if p < 0.5 else "double, take" if p < 0.75 else "double, pass")
        assert answer["cube"] == expected, (bearoff.side_counts(me), p)
        assert answer["equity"]["centered"] == pytest.approx(
            max(2 * p - 1, min(2 * (2 * p - 1), 1)), abs=1e-6)


@pytest.mark.parametrize("pieces,gammon_checkers", [
    (2, 15), pytest.param(3, 15, marks=pytest.mark.slow), (2, 2)])
def test_equal_to_the_reference_on_every_position(pieces, gammon_checkers):
    """Every value of every position; (2, 2) counts a loser with both checkers left as a
    gammon, to check the gammon paths on a small table."""
    game = get_game("bearoff", pieces)
    game = dataclasses.replace(game, race=dataclasses.replace(
        game.race, gammon_checkers=gammon_checkers))
    values = solve_two_sided(game, quiet=True)
    reference = solver(gammon_checkers=gammon_checkers, exact=pieces <= 2)
    names = ("win", "win_gammon", "lose_gammon", "centered", "owned", "unavailable")
    assert ("win_gammon" in values) == (pieces >= gammon_checkers)
    n = game.race.n_sides(pieces)
    for i in range(1, n):
        for j in range(1, n):
            me, opp = (tuple(bearoff.side_counts(game.race.side_of_index(k))) for k in (i, j))
            for name, want in zip(names, reference(me, opp)):
                got = values[name][i, j] if name in values else 0.0
                assert got == pytest.approx(float(want), abs=2e-6), (me, opp, name)


def test_one_sided_equal_to_the_reference():
    game = get_game("bearoff", 4)
    dist = throws_to_bear_off(game)
    for index in range(1, game.race.n_sides(4), 7):
        counts = tuple(bearoff.side_counts(game.race.side_of_index(index)))
        want = rolls_distribution(counts)
        got = {r: p for r, p in enumerate(dist[index]) if p}
        assert set(got) == set(want)
        assert all(got[r] == pytest.approx(want[r], abs=1e-12) for r in want)


gnubg = pytest.importorskip("gnubg")
GNUBG_DATA = os.path.join(os.path.dirname(gnubg.__file__), "data")


def gnubg_index(game, points=6):
    """gnubg's bear-off index of each of our sides (its own numbering)."""
    return np.array([gnubg.positionbearoff(bearoff.side_counts(game.race.side_of_index(i))
                                           + [0] * 19, points, game.pieces)
                     for i in range(game.race.n_sides(game.pieces))])


def test_two_sided_agrees_with_gnubg_on_every_position():
    """gnubg_ts0.bd: 924 x 924 positions (6 checkers on 6 points), four 16-bit equities
    each, for the player on roll who does not double: cubeless, owned, centred,
    unavailable (makebearoff.c). gnubg computes them in 16-bit integers, truncating at
    every step, so its figures drift from the exact ones by a few units of 1/32767.5
    (measured: at most 4.2 units); every one of ours lies within 5 units."""
    game = get_game("bearoff", 6)
    values = solve_two_sided(game, quiet=True)
    stored = np.fromfile(os.path.join(GNUBG_DATA, "gnubg_ts0.bd"), dtype="<u2", offset=40)
    stored = stored.reshape(924, 924, 4) / 32767.5 - 1
    index = gnubg_index(game)
    theirs = stored[np.ix_(index, index)][1:, 1:]
    ours = [2 * values["win"] - 1, values["owned"], values["centered"], values["unavailable"]]
    for q, mine in enumerate(ours):
        worst = np.abs(theirs[..., q] - mine[1:, 1:]).max()
        assert worst <= 5 * GNUBG_UNIT, (q, worst / GNUBG_UNIT)
    # and the cube actions agree wherever gnubg's rounding cannot flip them
    centered, unavailable = theirs[..., 2], theirs[..., 3]
    margin = np.minimum(np.abs(2 * unavailable - centered), np.abs(2 * unavailable - 1))
    clear = margin > 20 * GNUBG_UNIT
    ours_double = 2 * values["unavailable"][1:, 1:] >= values["centered"][1:, 1:]
    assert (ours_double == (2 * unavailable >= centered))[clear].all()


def read_one_sided(path, n):
    """gnubg's compressed one-sided database with gammon distributions
    (gnubg-OS-06-15-1-1-0): an index of 8 bytes a position (offset in 16-bit words,
    count and first roll of the non-zero chances), then the chances as value / 65535."""
    raw = open(path, "rb").read()
    index = np.frombuffer(raw, dtype=np.uint8, count=8 * n, offset=40).reshape(n, 8)
    offsets = index[:, :4].copy().view("<u4").ravel()
    data = np.frombuffer(raw, dtype="<u2", offset=40 + 8 * n)
    dist = np.zeros((n, 32))
    for i in range(n):
        count, first = index[i, 4], index[i, 5]
        dist[i, first:first + count] = data[offsets[i]:offsets[i] + count]
    return dist / 65535.0


@pytest.mark.slow
def test_one_sided_agrees_with_gnubg_on_every_position():
    """gnubg_os0.bd: 54,264 sides of up to 15 checkers. The average number of rolls
    agrees everywhere within 3e-4. Where two moves' averages lie within gnubg's
    rounding of each other, its rounded figures sometimes pick the other move (696
    sides inherit such a choice, the largest difference 182/65535 in one roll's
    chance), so the distributions are compared with gnubg's choices replayed: they
    agree within 4 units of 1/65535 on every side (gnubg rounds every chance to 16
    bits at every side, and the roundings add up along the way: measured at most 3.8
    units). Those choices cost under 1e-4 rolls on average, measured exactly."""
    game = get_game("bearoff", 15)
    n = game.race.n_sides(15)
    theirs = read_one_sided(os.path.join(GNUBG_DATA, "gnubg_os0.bd"), n)[gnubg_index(game)]
    rolls = np.arange(32)

    def padded(dist):
        out = np.zeros_like(theirs)
        out[:, :dist.shape[1]] = dist
        return out

    ours = padded(throws_to_bear_off(game))
    assert np.abs(ours @ rolls - theirs @ rolls).max() < 3e-4
    replayed = padded(throws_to_bear_off(game, rank_by=theirs @ rolls))
    assert np.abs(replayed - theirs).max() <= 4 / 65535
    assert (replayed @ rolls - ours @ rolls).max() < 1e-4
    assert (replayed @ rolls - ours @ rolls).min() > -1e-12    # ours is never worse


def test_commands(tmp_path, capsys):
    from tabula.cli import main
    out = tmp_path / "b2.h5"
    assert main(["solve", "bearoff", "--checkers", "2", "--out", str(out), "--quiet"]) == 0
    capsys.readouterr()
    position = '{"me": [0, 0, 0, 0, 0, 1], "opp": [1, 0, 0, 0, 0, 0]}'
    assert main(["value", "bearoff", "--table", str(out), "--position", position,
                 "--json"]) == 0
    answer = json.loads(capsys.readouterr().out)
    assert answer["win"] == pytest.approx(0.75, abs=1e-6)
    assert set(answer["equity"]) == {"cubeless", "centered", "owned", "unavailable"}
    assert main(["moves", "bearoff", "--table", str(out), "--position", position,
                 "--dice", "2", "1", "--json"]) == 0
    moves = json.loads(capsys.readouterr().out)["moves"]
    assert [m["position"]["opp"] for m in moves] == [[0, 0, 1, 0, 0, 0]]
    assert moves[0]["equity"]["cubeless"] == pytest.approx(-1.0, abs=1e-6)
    lines = tmp_path / "q.jsonl"
    lines.write_text(position + "\n" + json.dumps({"position": json.loads(position)}) + "\n")
    assert main(["value", "bearoff", "--table", str(out), "--input", str(lines)]) == 0
    assert len(capsys.readouterr().out.splitlines()) == 2
    assert main(["solve", "bearoff", "--checkers", "2", "--out", str(out)]) == 2
    assert "exists" in capsys.readouterr().err
    for flag in (["--tol", "1e-9"], ["--max-total", "3"], ["--device", "cuda"]):
        assert main(["solve", "bearoff", "--checkers", "2", "--out", str(tmp_path / "x.h5"),
                     *flag]) == 2   # the race solver takes no such setting: refused
        assert f"{flag[0]} is not for bearoff" in capsys.readouterr().err
    assert main(["table", "info", str(out), "--json"]) == 0
    info = json.loads(capsys.readouterr().out)
    assert info["positions"] == 27 ** 2 and info["values"][0] == "win"
    assert main(["table", "verify", str(out)]) == 0
    capsys.readouterr()
    assert main(["eval", "report", "bearoff", "--checkers", "2", "--table", str(out),
                 "--out", str(tmp_path / "report"), "--games", "50", "--quiet"]) == 0
    assert "| perfect | 50 | 0.0000 |" in capsys.readouterr().out
    assert main(["eval", "report", "bearoff", "--checkers", "2", "--table", str(out),
                 "--out", str(tmp_path / "r2"), "--players", "random"]) == 2
    assert "with the cube are perfect, heuristic, net" in capsys.readouterr().err
    # the heuristic plays the cube as if it were dead (eval/equities.py): it gives some away
    assert main(["eval", "regret", "bearoff", "--checkers", "2", "--table", str(out),
                 "--player", "heuristic", "--games", "200", "--json", "--quiet"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["cube_decisions"] > 0 and result["cube_loss_per_game_points"] > 0
    # a match is played without the cube, in points a game too; the same player on both
    # sides of duplicate pairs scores even
    assert main(["eval", "match", "bearoff", "--checkers", "2", "--table", str(out),
                 "--a", "perfect", "--b", "perfect", "--pairs", "100", "--quiet"]) == 0
    said = capsys.readouterr().out
    assert "perfect scores 50.00%" in said and "without the cube: perfect +0.000 points" in said
    # with the cube (eval/money_match.py): a pair's two games are the same game, seats
    # swapped, so the same player scores exactly even; the perfect player beats the
    # heuristic, which plays the cube as if it were dead
    assert main(["eval", "match", "bearoff", "--checkers", "2", "--table", str(out), "--cube",
                 "--a", "perfect", "--b", "perfect", "--pairs", "50", "--quiet"]) == 0
    assert "money play with the cube: perfect +0.000 points a game" in capsys.readouterr().out
    assert main(["eval", "match", "bearoff", "--checkers", "2", "--table", str(out), "--cube",
                 "--a", "perfect", "--b", "heuristic", "--pairs", "300", "--json",
                 "--quiet"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["points_a_per_game_ci95"][0] > 0 and result["games"] == 600
    assert main(["eval", "match", "bearoff", "--checkers", "2", "--table", str(out), "--cube",
                 "--a", "perfect", "--b", "random", "--pairs", "5"]) == 2
    assert "cannot play with the doubling cube" in capsys.readouterr().err


def test_a_damaged_race_table_is_refused(tmp_path):
    import h5py
    from tabula.solver.race_table import RaceTableError
    out = tmp_path / "b1.h5"
    solve_race(get_game("bearoff", 1), out, quiet=True)
    with h5py.File(out, "r+") as f:
        f["values/win"][1, 1] = 0.5
    with pytest.raises(RaceTableError, match="damaged"):
        RaceTable(out)


@pytest.mark.slow
def test_the_chain_with_the_cube(tmp_path, capsys):
    """The pipeline on 3 checkers: solve -> datagen (self-play from random starts and
    uniform draws) -> train -> export -> report; the net learns every value of the
    table, is exported with them and scored with the cube; the table's own player gives
    away nothing."""
    import yaml
    from tabula.cli import main
    work = tmp_path / "work"
    config = tmp_path / "b3.yaml"
    config.write_text(yaml.safe_dump({
        "name": "b3", "game": "bearoff", "pieces": 3, "workdir": str(work),
        "datagen": {"games": 3000, "uniform": 10000, "seed": 1},
        "train": {"model": {"hidden": [32]}, "data": {"batch_size": 1024},
                  "trainer": {"max_epochs": 4}},
        "export": {"int8": True},
        "report": {"games": 300, "seed": 1, "players": ["net", "net-int8", "perfect"]}}))
    assert main(["pipeline", str(config)]) == 0
    printed = capsys.readouterr().out
    assert "| checker play (pts) |" in printed
    model = work / "model.onnx"
    manifest = json.loads(model.with_suffix(".json").read_text())
    assert manifest["output"]["columns"] == ["win", "centered", "owned", "unavailable"]
    for path in (model, work / "model.int8.onnx", work / "report", work / "table.h5"):
        assert main(["verify", str(path)]) == 0, path
    rows = json.loads((work / "report" / "results.json").read_text())["players"]
    assert [r["player"].split(":")[0] for r in rows] == ["net", "net", "perfect"]
    assert rows[-1]["loss_per_game_points"] == 0 and rows[-1]["cube_decisions"] > 300
    for row in rows:
        assert row["loss_per_game_points"] == pytest.approx(
            row["checker_loss_per_game_points"] + row["cube_loss_per_game_points"])
    capsys.readouterr()
    assert main(["eval", "regret", "bearoff", "--checkers", "3", "--table",
                 str(work / "table.h5"), "--player", f"net:{model}", "--games", "300",
                 "--seed", "1", "--json", "--quiet"]) == 0
    assert json.loads(capsys.readouterr().out) == rows[0]
    assert main(["datagen", "bearoff", "--checkers", "3", "--table", str(work / "table.h5"),
                 "--out", str(tmp_path / "d.h5"), "--alternatives", "--quiet"]) == 2
    assert "--alternatives is not available" in capsys.readouterr().err


def test_play_with_the_cube_in_the_terminal(tmp_path):
    """A scripted game against the table's perfect play: the cube is offered, the hints
    name the equities, a double is answered and the game ends with points."""
    import io
    from tabula.play import Console, play_game
    from tabula.session import start_session
    out = tmp_path / "t.h5"
    solve_race(get_game("bearoff", 3), out, quiet=True)
    table = RaceTable(out)
    session = start_session(table.game, "master", seed=5, table=table)
    script = io.StringIO("?\nd\n" + "r\n1\n" * 20)
    shown = io.StringIO()
    result = play_game(session, Console(script, shown))
    text = shown.getvalue()
    assert "no double: " in text and "double to 2: " in text
    assert "you (white) double to 2" in text and "the computer (black) " in text
    assert result is not None and session.points in (1, 2, 4, 8)


def test_a_table_too_large_for_the_machine_is_refused_at_once(tmp_path, capsys):
    from tabula.cli import main
    from tabula.solver.race_table import memory_needed
    needed = memory_needed(get_game("bearoff", 15))
    assert needed > 64 * 2**30
    if os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") >= needed:
        pytest.skip("this machine could solve it (for hours)")
    assert main(["solve", "bearoff", "--checkers", "15", "--out", str(tmp_path / "t.h5")]) == 2
    assert "--one-sided" in capsys.readouterr().err and not (tmp_path / "t.h5").exists()


def test_moves_are_written_in_backgammon_notation_that_replays_them():
    """Every legal move of 300 random positions and every roll, written as backgammon
    writes it (6/2 5/off, 6/3(2)), played back step by step from the position before,
    gives the position the move leads to; two different moves are never written alike."""
    import re
    from tabula.runtime.sampling import uniform_positions
    game = get_game("bearoff", 6)
    for code in uniform_positions(game, 300, 4):
        before = game.to_json(int(code))["me"]
        for throw in game.throws:
            written = set()
            for move in game.legal_moves(int(code), int(throw)):
                text = game.presentation.notation(int(code), move["position"], int(throw))
                counts = list(before)
                for start, end, times in re.findall(r"(\d)/(\d|off)(?:\((\d)\))?", text):
                    for _ in range(int(times or 1)):
                        counts[int(start) - 1] -= 1
                        if end != "off":
                            counts[int(end) - 1] += 1
                assert counts == game.to_json(move["position"])["opp"], (before, throw, text)
                written.add(text)
            assert len(written) == len(game.legal_moves(int(code), int(throw)))


def test_a_bear_off_in_the_terminal_says_who_plays_in_notation_and_reviews(capsys):
    """Against the shipped network, no table: pip counts on the board, moves in
    notation, hints from the network's estimate, and a review of checker play and cube
    decisions at the end."""
    import io
    import re
    from tabula.runtime.model_file import OnnxValueModel
    from tabula.play import Console, play_game
    from tabula.session import shipped_model, start_session
    game = get_game("bearoff", 10)
    path = shipped_model(game)
    session = start_session(game, seed=3, model_path=path, model=OnnxValueModel(
        path, game="bearoff", pieces=10))
    shown = io.StringIO()
    result = play_game(session, Console(io.StringIO("r\n?\n1\n" * 60), shown))
    text = shown.getvalue()
    assert text.startswith("bearoff with 10 checkers a side")
    assert result is not None and re.search(r"white: .* \d+ pips", text)
    assert re.search(r"you \(white\) play \d/(\d|off)", text)
    assert re.search(r"the computer \(black\) plays \d/(\d|off)", text)
    assert "from best to worst (the network's estimate" in text
    assert re.search(r"checker play: \d+ decisions, \d+ not the best, [\d.]+ points", text)
    assert re.search(r"cube: \d+ decisions, \d+ wrong", text)


def test_the_api_answers_a_bear_off_network_as_it_answers_a_table(tmp_path):
    """api.open_model(...).value on a network of equities (issue 65: a TypeError) answers
    what api.value answers from a table: the cubeless chances, the equity in each cube
    state and the cube action, from the network's outputs."""
    from tabula import api
    models = Path(__file__).resolve().parent.parent / "models"
    position = {"me": [2, 0, 4, 2, 0, 2], "opp": [4, 2, 1, 3, 0, 0]}
    model = api.open_model(models / "bearoff10.onnx")
    said = model.value(position)
    outputs = dict(zip(model.onnx.value_names,
                       model.onnx.predict([model.game.position_from_json(position)])[0]))
    assert said["win"] == pytest.approx(outputs["win"])
    assert said["equity_no_double"]["unavailable"] == pytest.approx(outputs["unavailable"])
    small = tmp_path / "b4.h5"
    solve_race(get_game("bearoff", 4), small, quiet=True)
    table_says = api.value(api.open_table(small), {"me": [1, 0, 2, 0, 0, 1],
                                                    "opp": [0, 1, 1, 1, 0, 0]})
    assert said.keys() == table_says.keys() and said["equity"].keys() == table_says["equity"].keys()
    assert said["cube"] in ("no double", "double, take", "double, pass")
    assert isinstance(api.open_model(models / "ur7.onnx").value("start"), float)


def test_a_move_is_shown_checker_by_checker():
    """A bear-off's move carries each checker's step, in the order played, for the page
    to slide one by one (issue 65: '6/3 1/off' was shown as one checker from the 6-point
    off the board)."""
    from tabula.session import start_session
    game = get_game("bearoff", 4)
    seen = 0
    for seed in range(6):
        session = start_session(game, hotseat=True, seed=seed)
        session.roll()
        if session.throw is None:
            continue
        move = session.play(len(session.moves) - 1)[0]["move"]
        high, low = divmod(session.frames[-1]["throw"], 10)
        dice = 4 if high == low else 2
        assert 1 <= len(move["steps"]) <= dice
        assert move["steps"][0]["from_cell"].startswith("p0-")
        points = sum(int(s["from_cell"][3:]) - (0 if s["to_cell"] == "off0"
                                                else int(s["to_cell"][3:]))
                     for s in move["steps"])
        assert points <= high * (dice // 2) + low * (dice // 2)   # no step beyond the dice
        seen += len(move["steps"]) > 1
    assert seen >= 3
