"""Temporal-difference self-play (training/td.py, `tabula td`): its one-roll backup is
the exact solve's, its lambda-returns the sum they stand for, a stopped run resumes to
the same weights, and on hypergammon with one checker it learns the table's values."""
import json

import numpy as np
import pytest
import torch

from tabula.cli import main
from tabula.eval.equities import cubeless_chooser, searched_chances
from tabula.games import get_game
from tabula.games.game import OVER
from tabula.infra.batch import all_throws
from tabula.runtime.model_file import OnnxValueModel
from tabula.solver import contact
from tabula.training import td

TINY = {"hidden": [8]}


@pytest.fixture(scope="module")
def one_checker():
    """Hypergammon with one checker a side, solved: (game, values_of)."""
    game = get_game("backgammon", 1)
    codes, offsets, values, _ = contact.solve_values(game, quiet=True)
    return game, codes, lambda c: values[contact.numbers_of(game, offsets, np.asarray(c))]


def turned(chances):
    win, wg, wbg, lg, lbg = chances
    return np.array([1 - win, lg, lbg, wg, wbg])


def test_one_roll_backups_averaged_over_the_rolls_are_the_exact_values(one_checker):
    """With the table's values in the network's place, the labels of a position's 21
    rolls, weighted by their chances, are its value: the exact solve's backup."""
    game, codes, values_of = one_checker
    sample = codes
    counts, next_codes, infos = all_throws(game.moves, game.mirror, game.throws,
                                           game.max_moves, sample)
    n, t = counts.shape
    chosen, labels = td.label_decisions(game, values_of, np.repeat(sample, t),
                                        counts.reshape(-1), next_codes.reshape(n * t, -1),
                                        infos.reshape(n * t, -1))
    backed_up = np.einsum("ntv,t->nv", labels.reshape(n, t, -1), game.probs)
    assert np.abs(backed_up - values_of(sample)).max() < 1e-8
    assert len(sample) > 500 and (chosen > 0).any()


def test_a_blocked_roll_passes_the_position_to_the_opponent():
    """A roll without a legal move is one move to the mirror, labelled with its values
    turned round (the solve's rule), and the chooser picks it."""
    game = get_game("backgammon", 2)
    code = game.position_from_json({"me": ["bar", 24], "opp": [6, 6]})   # 6-6 cannot enter
    assert len(game.move_arrays(code, 66)[0]) == 0
    fake = np.linspace(0.05, 0.45, td.N_VALUES)
    counts = np.zeros(1, dtype=np.int64)
    next_codes = np.zeros((1, game.max_moves), dtype=game.code_dtype)
    infos = np.zeros((1, game.max_moves), dtype=np.int64)
    asked = []
    def values_of(codes):
        asked.append(codes)
        return np.tile(fake, (len(codes), 1))
    chosen, labels = td.label_decisions(game, values_of, np.array([code]), counts,
                                        next_codes, infos)
    assert chosen[0] == 0 and next_codes[0, 0] == game.mirror(code)
    assert list(asked[0]) == [game.mirror(code)]
    expected = contact.turned_values(fake)
    assert np.allclose(labels[0], expected)


def test_lambda_returns_are_the_sum_they_stand_for():
    """G(t) = sum_k (1 - lam) lam^k turned^k(L(t + k)), the last label's weight
    lam^(n - 1 - t): the forward view written out."""
    rng = np.random.default_rng(3)
    labels = rng.uniform(size=(6, td.N_VALUES))
    lam = 0.6
    out = np.empty((6, td.N_CHANCES))
    td.lambda_returns(labels, lam, out)
    n = len(labels)
    for t in range(n):
        expected = np.zeros(td.N_CHANCES)
        for k in range(n - t):
            chances = labels[t + k, :td.N_CHANCES]
            for _ in range(k):
                chances = turned(chances)
            weight = lam ** k if t + k == n - 1 else (1 - lam) * lam ** k
            expected += weight * chances
        assert np.allclose(out[t], expected)


def test_the_learning_rate_falls_by_a_cosine_when_asked():
    falling = {"lr": 1e-3, "lr_end": 1e-4, "games": 1000}
    assert td.learning_rate(falling, 0) == pytest.approx(1e-3)
    assert td.learning_rate(falling, 500) == pytest.approx(5.5e-4)
    assert td.learning_rate(falling, 1000) == pytest.approx(1e-4)
    assert td.learning_rate({**falling, "lr_end": -1.0}, 700) == 1e-3


class Stopped(Exception):
    pass


def test_a_stopped_run_resumes_to_the_same_weights(tmp_path):
    """A run killed after its second chunk (its checkpoint written), run again, ends
    with the weights of a run never stopped, its falling learning rate included."""
    game = get_game("backgammon", 1)
    settings = {"games": 90, "chunk": 30, "seed": 4, "lr_end": 1e-4}
    whole = td.td_train(game, tmp_path / "whole", settings, TINY, log=lambda *_: None)
    chunks = []

    def stop_after_two(line):
        chunks.append(line)
        if len(chunks) == 2:
            raise Stopped
    with pytest.raises(Stopped):
        td.td_train(game, tmp_path / "stopped", settings, TINY, log=stop_after_two)
    said = []
    resumed = td.td_train(game, tmp_path / "stopped", settings, TINY, log=said.append)
    assert said[0] == f"resuming {tmp_path / 'stopped' / td.CHECKPOINT} at game 60"
    assert resumed["games"] == whole["games"] == 90
    a, b = (torch.load(tmp_path / run / td.CHECKPOINT, weights_only=True)["state_dict"]
            for run in ("whole", "stopped"))
    assert all(torch.equal(a[k], b[k]) for k in a)
    with pytest.raises(td.TdError, match="made of"):
        td.td_train(game, tmp_path / "stopped", {**settings, "lam": 0.0}, TINY)
    damaged = torch.load(tmp_path / "stopped" / td.CHECKPOINT, weights_only=True)
    damaged["tabula"]["td"]["games"] = -30
    torch.save(damaged, tmp_path / "stopped" / td.CHECKPOINT)
    with pytest.raises(td.TdError, match="damaged checkpoint"):
        td.td_train(game, tmp_path / "stopped", settings, TINY)


def test_a_game_still_going_after_max_turns_ends_there():
    """Games cut at max_turns keep the positions they met, the same as in games left
    to run, and are counted."""
    from tabula.training.model import ValueNet
    game = get_game("backgammon", 2)
    torch.manual_seed(0)
    net = ValueNet(game.name, game.pieces, rules=game.rules, loss="bce", **TINY).eval()
    codes, labels, of_game, cut = td.play_chunk(game, net, 0, 40, 7)
    short_codes, short_labels, short_of_game, short_cut = td.play_chunk(game, net, 0, 40, 7,
                                                                        max_turns=6)
    lengths = np.bincount(of_game, minlength=40)
    assert cut == 0 and short_cut == (lengths > 6).sum() > 0
    assert (np.bincount(short_of_game, minlength=40) == np.minimum(lengths, 6)).all()
    kept = np.concatenate([np.flatnonzero(of_game == g)[:6] for g in range(40)])
    assert (short_codes == codes[kept]).all() and np.allclose(short_labels, labels[kept])


def test_self_play_learns_the_one_checker_game(one_checker, tmp_path):
    """Three thousand games bring the network's cubeless equities near the table's: the
    mean error over every position falls to under a third of the untaught net's."""
    game, codes, values_of = one_checker
    exact = values_of(codes)

    def mean_error(net):
        got = td._values(net, codes)
        return np.abs(contact.cubeless_equity(*got[:, :5].T)
                      - contact.cubeless_equity(*exact[:, :5].T)).mean()
    torch.manual_seed(0)
    untaught = td.ValueNet("backgammon", 1, rules="hyper", hidden=[32])
    td.td_train(game, tmp_path, {"games": 3000, "chunk": 100, "lr": 3e-3, "batch": 32,
                                 "seed": 0},
                {"hidden": [32]}, log=lambda *_: None)
    taught, _ = td.ValueNet.from_checkpoint(tmp_path / td.CHECKPOINT)
    assert mean_error(taught.eval()) < mean_error(untaught.eval()) / 3


def test_the_cubeless_chooser_plays_the_best_cubeless_equity(one_checker):
    game, codes, values_of = one_checker
    counts, next_codes, infos = all_throws(game.moves, game.mirror, game.throws,
                                           game.max_moves, codes[::11][:200])
    counts, next_codes, infos = (counts.reshape(-1), next_codes.reshape(-1, game.max_moves),
                                 infos.reshape(-1, game.max_moves))
    rows = np.repeat(codes[::11][:200], len(game.throws))
    choose = cubeless_chooser(game, lambda c: contact.cubeless_equity(*values_of(c)[:, :5].T))
    chosen = choose(rows, counts, next_codes, infos, None)
    for i in range(len(counts)):
        worth = [game.loss_size(after, game.pieces) if info & OVER
                 else -contact.cubeless_equity(*values_of([after])[0, :5])
                 for after, info in zip(next_codes[i, :counts[i]], infos[i, :counts[i]])]
        assert worth[chosen[i]] == max(worth)


def test_one_throw_of_search_over_the_exact_values_gives_them_back(one_checker):
    """net+search's search (eval/equities.py: searched_chances) over the table's
    cubeless chances returns their equity: the cubeless solve's own backup; over a worse
    evaluator it returns something else."""
    game, codes, values_of = one_checker
    def exact(c):
        return values_of(c)[:, :5]
    def equity(chances):
        return contact.cubeless_equity(*chances.T)
    searched = searched_chances(game, exact)(codes)
    assert np.abs(equity(searched) - equity(exact(codes))).max() < 1e-8
    assert np.abs(searched - exact(codes)).max() < 1e-3   # equal moves may differ in chances
    halved = searched_chances(game, lambda c: exact(c) * [1, 0, 0, 0, 0])(codes)
    assert np.abs(equity(halved) - equity(exact(codes))).max() > 0.1


def test_tabula_td_on_the_standard_game_exports_a_model_and_refuses_other_work(
        tmp_path, capsys):
    work = tmp_path / "std"
    args = ["td", "backgammon", "--rules", "standard", "--workdir", str(work),
            "--games", "4", "--chunk", "2", "--hidden", "4"]
    assert main(args + ["--json"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["games"] == 4 and summary["positions"] > 40
    manifest = json.loads((work / "model.json").read_text())
    assert manifest["input"]["shape"] == ["batch", 2]
    assert manifest["parity"]["max_abs_diff"] < 1e-5
    game = get_game("backgammon", None, "standard")
    model = OnnxValueModel(work / "model.onnx", game="backgammon", pieces=15,
                           rules="standard")
    net, _ = td.ValueNet.from_checkpoint(work / td.CHECKPOINT)
    codes = np.array([game.start, game.mirror(game.start)])
    assert np.allclose(model.predict(codes), td._values(net.eval(), codes), atol=1e-5)
    assert main(args[:-1] + ["8"]) == 2
    assert "made of" in capsys.readouterr().err
    assert main(["td", "ur", "--workdir", str(tmp_path / "ur"), "--games", "2"]) == 2
    assert "nine values" in capsys.readouterr().err
    assert main(args + ["--lr-end", "-0.5", "--force"]) == 2
    assert "--lr-end must be 0 or more (or -1: --lr all through)" in capsys.readouterr().err
    assert main(args + ["--lambda", "2", "--force"]) == 2   # the flag, not the field (lam)
    assert "--lambda must be at least 0.0 and at most 1.0" in capsys.readouterr().err
    assert main(args + ["--workdir", str(work / "model.onnx")]) == 2   # the last one counts
    assert "is a file, not a work folder" in capsys.readouterr().err
