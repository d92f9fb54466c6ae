"""Evaluation: exact losses, the perfect player, duplicate matches, refusals."""
import json

import numpy as np
import pytest

from tabula.eval.measures import match, regret
from tabula.eval.players import PlayerError, make_player
from tabula.eval.search import decision_worths
from tabula.games.game import AGAIN, OVER, layer_id
from tabula.cli import main


def test_perfect_loses_nothing_and_random_loses(tables):
    table = tables[("ur", 3)]
    perfect = regret(table, make_player("perfect", table.game, table), 300, 1)
    assert perfect.summary["decisions"] > 1000
    assert perfect.loss_points.max() == 0 and perfect.summary["error_rate"] == 0
    rand = regret(table, make_player("random", table.game, table), 300, 1)
    assert rand.summary["loss_per_game_points"] > 10 and rand.loss_points.min() >= 0
    assert rand.summary["win_rate_vs_perfect"] < 0.3
    heuristic = regret(table, make_player("heuristic", table.game), 300, 1)
    assert heuristic.summary["loss_per_game_points"] < rand.summary["loss_per_game_points"]


def test_losses_of_a_hand_built_decision(tables):
    """Ur, 2 pieces: the mover has a piece on 3 and one waiting, the opponent one on 6
    and one waiting. A throw of 1 allows 3 -> 4 (a rosette: throw again, worth
    V(next)) and entering on 1 (the turn passes, worth 1 - V(next)); the loss of a
    move is the best worth minus its own."""
    table = tables[("ur", 2)]
    game = table.game
    code = game.position_from_json({"me": [3], "me_waiting": 1, "opp": [6],
                                    "opp_waiting": 1})
    moves = game.legal_moves(code, 1)
    assert sorted((m["from"], m["to"], m["again"]) for m in moves) == [(0, 1, False),
                                                                        (3, 4, True)]
    by_hand = []
    for m in moves:
        v = table.value(m["position"])
        by_hand.append(1.0 if m["over"] else (v if m["again"] else 1.0 - v))
    counts = np.array([len(moves)] * len(moves))
    next_codes = np.zeros((len(moves), game.max_moves), dtype=np.int64)
    infos = np.zeros_like(next_codes)
    for j, m in enumerate(moves):
        next_codes[:, j], infos[:, j] = m["position"], m["info"]
    chosen = np.arange(len(moves))
    got = table.decision_losses(counts, next_codes, infos, chosen)   # the judge of regret
    assert got == pytest.approx(max(by_hand) - np.array(by_hand), abs=1e-12)
    # one throw of search over the exact table gives the same worths (Bellman)
    for depth in (0, 1):
        worths = decision_worths(game, counts[:1], next_codes[:1], infos[:1], depth,
                                 table.values)[0, :len(moves)]
        assert worths == pytest.approx(by_hand, abs=2e-6)
    perfect = make_player("perfect", game, table)
    pick = perfect.choose(np.array([code]), counts[:1], next_codes[:1], infos[:1],
                          np.zeros(1))
    assert by_hand[pick[0]] == max(by_hand)


def test_self_match_scores_half_and_is_reproducible(tables):
    game = tables[("ur", 2)].game
    a, b = make_player("random", game), make_player("random", game)
    first = match(a, b, 400, seed=3)
    low, high = first["score_a_ci95"]
    assert low <= 0.5 <= high and high - low < 0.15
    again = match(a, b, 400, seed=3)
    assert {**again, "seconds": 0} == {**first, "seconds": 0}
    h = make_player("heuristic", game)
    assert match(h, h, 100, seed=1)["score_a"] == 0.5   # mirrored games


def exact_pair_score(game, a, b, tol=1e-12):
    """A's expected score over a duplicate pair against B, by policy evaluation
    (independent of the engine): the chance that A wins from every position with A
    to throw (wa) and with B to throw (wb), iterated until it settles. Deterministic
    players only (their random numbers are fixed at 0)."""
    codes = [game.unrank(layer_id(x, y), r) for x, y in game.layers if x > 0 and y > 0
             for r in range(game.layer_size(x, y))]
    index = {int(c): i for i, c in enumerate(codes)}
    rows, probs, counts, next_codes, infos = [], [], [], [], []
    out_codes = np.zeros(game.max_moves, dtype=np.int64)
    out_infos = np.zeros(game.max_moves, dtype=np.int64)
    for i, code in enumerate(codes):
        for throw, prob in zip(game.throws, game.probs):
            counts.append(game.moves(code, throw, out_codes, out_infos))
            if counts[-1] == 0:   # forfeit: the mirrored board, the other side throws
                out_codes[0], out_infos[0] = game.mirror(code), 0
            rows.append(i)
            probs.append(prob)
            next_codes.append(out_codes.copy())
            infos.append(out_infos.copy())
    rows, probs, counts = np.array(rows), np.array(probs), np.array(counts)
    next_codes, infos = np.array(next_codes), np.array(infos)
    row_codes = np.array(codes)[rows]

    def picked(player):
        choice = np.zeros(len(rows), dtype=np.int64)
        ask = counts >= 1
        choice[ask] = player.choose(row_codes[ask], counts[ask], next_codes[ask],
                                    infos[ask], np.zeros(ask.sum()))
        info = infos[np.arange(len(rows)), choice]
        target = np.array([index.get(int(c), -1)
                           for c in next_codes[np.arange(len(rows)), choice]])
        won = info & OVER != 0
        assert (won | (target >= 0)).all()   # only a winning move leaves the positions
        return won, info & AGAIN != 0, target

    a_won, a_again, a_next = picked(a)
    b_won, b_again, b_next = picked(b)
    wa, wb = np.full(len(codes), 0.5), np.full(len(codes), 0.5)
    while True:
        new_a = np.bincount(rows, probs * np.where(a_won, 1.0, np.where(
            a_again, wa[a_next], wb[a_next])), len(codes))
        new_b = np.bincount(rows, probs * np.where(b_won, 0.0, np.where(
            b_again, wb[b_next], wa[b_next])), len(codes))
        change = max(np.abs(new_a - wa).max(), np.abs(new_b - wb).max())
        wa, wb = new_a, new_b
        if change < tol:
            start = index[int(game.start)]
            return (wa[start] + wb[start]) / 2


def test_luck_adjusted_score_is_the_exact_expectation_with_less_spread(tables, capsys):
    """Heuristic against perfect on Ur with 2 pieces: the raw and the luck-adjusted
    scores both estimate the expected score that policy evaluation gives exactly;
    the adjusted one with a far narrower interval. Perfect against itself: the
    adjusted score of every pair is one half (its spread is the table's float32
    rounding)."""
    table = tables[("ur", 2)]
    game = table.game
    heuristic, perfect = make_player("heuristic", game), make_player("perfect", game, table)
    exact = exact_pair_score(game, heuristic, perfect)
    assert 0.3 < exact < 0.49
    result = match(heuristic, perfect, 2000, seed=4, table=table)
    raw_half = (result["score_a_ci95"][1] - result["score_a_ci95"][0]) / 2
    adjusted_half = (result["luck_adjusted_score_a_ci95"][1]
                     - result["luck_adjusted_score_a_ci95"][0]) / 2
    assert abs(result["score_a"] - exact) < 2 * raw_half
    assert abs(result["luck_adjusted_score_a"] - exact) < 2 * adjusted_half
    assert adjusted_half < raw_half / 3
    itself = match(perfect, perfect, 300, seed=4, table=table)
    assert itself["luck_adjusted_score_a"] == pytest.approx(0.5, abs=1e-6)
    assert np.diff(itself["luck_adjusted_score_a_ci95"])[0] < 1e-6
    assert match(heuristic, perfect, 10, seed=4)["luck_adjusted_score_a"] is None
    assert main(["eval", "match", "ur", "--table", str(table.path), "--a", "heuristic",
                 "--b", "perfect", "--pairs", "2000", "--seed", "4", "--quiet"]) == 0
    printed = capsys.readouterr().out
    assert f"luck-adjusted by the table: {result['luck_adjusted_score_a']:.3%}" in printed


def test_expectimax_searches_and_beats_random(tables):
    table = tables[("ur", 2)]
    game = table.game
    result = match(make_player("expectimax:2", game), make_player("random", game),
                   150, seed=2)
    assert result["score_a"] > 0.6


def test_other_game_table_model_and_bad_specs_are_refused(tables, tmp_path, capsys):
    ur = str(tables[("ur", 3)].path)
    assert main(["eval", "regret", "senet", "--table", ur, "--player", "random"]) == 2
    assert "is a table of ur(rules=finkel,pieces=3), not of senet" in capsys.readouterr().err
    assert main(["eval", "regret", "ur", "--table", ur, "--player", "wizard"]) == 2
    assert "unknown player 'wizard'" in capsys.readouterr().err
    assert main(["eval", "match", "ur", "--a", "perfect", "--b", "random"]) == 2
    assert "needs a table" in capsys.readouterr().err
    with pytest.raises(PlayerError, match="depth of 1, 2 or 3"):
        make_player("expectimax:7", tables[("ur", 3)].game)


def test_report_writes_every_player(tables, tmp_path, capsys):
    out = tmp_path / "report"
    assert main(["eval", "report", "ur", "--table", str(tables[("ur", 2)].path), "--games",
                 "100", "--players", "random", "heuristic", "perfect", "--out", str(out),
                 "--quiet", "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert [r["player"] for r in result["players"]] == ["random", "heuristic", "perfect"]
    for name in ("REPORT.md", "results.json", "loss_per_game.png", "loss_distribution.png"):
        assert (out / name).stat().st_size > 0
    assert "| heuristic |" in (out / "REPORT.md").read_text()
    again = ["eval", "report", "ur", "--table", str(tables[("ur", 2)].path), "--games", "10",
             "--players", "random", "--out", str(out), "--quiet"]
    assert main(again) == 2 and "--force" in capsys.readouterr().err
    assert "| heuristic |" in (out / "REPORT.md").read_text()       # not overwritten
    assert main(again + ["--force"]) == 0 and "| heuristic |" not in (out / "REPORT.md").read_text()


@pytest.mark.slow
def test_report_plots_name_players_shortly_and_are_saved_to_look_at(tables, ur3_run, tmp_path):
    """Rendered with a network among the players (a long path); copied to
    runs/test-plots/ to be looked at."""
    import shutil
    from pathlib import Path

    from tabula.eval.report import short_name
    model = tmp_path / "models" / "ur3-long-name.onnx"
    model.parent.mkdir()
    assert main(["export", str(ur3_run / "checkpoints" / "best.ckpt"), "--out", str(model),
                 "--int8"]) == 0
    out = tmp_path / "report"
    specs = ["random", "heuristic", f"net:{model}", f"net:{model.with_suffix('')}.int8.onnx",
             f"net+search:{model}", "perfect"]
    assert main(["eval", "report", "ur", "--pieces", "3", "--table",
                 str(tables[("ur", 3)].path), "--games", "200", "--players", *specs,
                 "--out", str(out), "--quiet"]) == 0
    text = (out / "REPORT.md").read_text()
    assert "| net (ur3-long-name) |" in text and "| net (ur3-long-name.int8) |" in text
    assert short_name(f"net+search:{model}") == "net+search (ur3-long-name)"
    shots = Path(__file__).resolve().parent.parent / "runs" / "test-plots"
    shots.mkdir(parents=True, exist_ok=True)
    for name in ("loss_per_game.png", "loss_distribution.png"):
        assert (out / name).stat().st_size > 10_000
        shutil.copy(out / name, shots / name)
    assert (ur3_run / "learning_curve.png").stat().st_size > 10_000
    shutil.copy(ur3_run / "learning_curve.png", shots / "learning_curve.png")


def test_a_player_of_another_variant_is_refused(tables):
    """regret and match take the table and the players, each knowing its game: a
    player made for another variant than the table's is refused, not played."""
    from tabula.games import get_game
    table = tables[("ur", 3)]
    two = make_player("heuristic", get_game("ur", 2))
    with pytest.raises(PlayerError, match=r"plays ur\(rules=finkel,pieces=2\), not of pieces=3"):
        regret(table, two, 10, 1)
    with pytest.raises(PlayerError, match="not of pieces=3"):
        match(make_player("heuristic", table.game), two, 5, seed=1)
