"""Hypergammon solved with the cube (solver/contact.py, solver/contact_table.py): equal
to a plain recursion (tests/reference/hypergammon_values.py) on the 1-checker game, to
GNU Backgammon's makehyper within its precision, and its table file checked."""
import shutil
import subprocess

import h5py
import numpy as np
import pytest

from tabula.games import get_game
from tabula.games.game import OVER
from tabula.solver import contact
from tabula.solver.contact_table import ContactTable, ContactTableError
from tabula.solver.solution import CONTACT, kind_of_game, open_solution, solve_game
from tests.makehyper_bridge import (MAKEHYPER, cubeless_equity, differences, read_makehyper,
                                    records_of)
from tests.reference import hypergammon_values



@pytest.fixture(scope="module")
def one_checker():
    game = get_game("backgammon", 1)
    codes, offsets, values, figures = contact.solve_values(game, quiet=True)
    return game, codes, offsets, values, figures


def reference_state(game, code):
    position = game.to_json(int(code))
    sides = []
    for key in ("me", "opp"):
        side = [0] * 26
        for place in position[key]:
            side[25 if place == "bar" else place] += 1
        side[0] = game.pieces - sum(side)
        sides.append(tuple(side))
    return tuple(sides)


def test_one_checker_equals_the_plain_recursion(one_checker):
    game, codes, offsets, values, figures = one_checker
    reference = hypergammon_values.solve(1)
    assert len(reference) == len(codes) == 601
    assert figures["residual"] <= 1e-9
    theirs = np.array([reference[reference_state(game, c)] for c in codes])
    assert np.abs(theirs - values).max() < 1e-9


def test_each_moves_chances_back_up_to_the_cubeless_equity(one_checker):
    """move_chances, the chances after every move of table_moves: the best move's
    cubeless equity of each roll, averaged over the rolls, is the position's."""
    game, codes, offsets, values, _ = one_checker
    firsts, counts, targets = contact.table_moves(game, codes, offsets)
    chances = contact.move_chances(values, targets)
    assert chances.shape == (len(targets), 5)
    assert ((chances >= -1e-12) & (chances <= 1 + 1e-12)).all()
    equity = cubeless_equity(chances)
    starts = np.concatenate([[0], np.cumsum(counts.ravel(), dtype=np.int64)[:-1]])
    backed_up = (np.maximum.reduceat(equity, starts).reshape(counts.shape)
                 * game.probs).sum(axis=1)
    assert np.abs(backed_up - cubeless_equity(values[:, :5])).max() < 1e-8


def test_the_table_file_answers_verifies_and_refuses_damage(tmp_path, one_checker):
    game = one_checker[0]
    assert kind_of_game(game) is CONTACT
    out = tmp_path / "hyper1.h5"
    summary = solve_game(game, out, quiet=True, tol=1e-9)
    assert summary["residual"] <= 1e-9
    table = open_solution(out)
    assert isinstance(table, ContactTable)
    report = table.verify(sample=1000)               # more than it holds: every one
    assert report["ok"] and report["positions_checked"] == 601
    start = table.answer(game.start)
    assert start["win"] == pytest.approx(one_checker[3][
        one_checker[2][game.layer_of(game.start)] + game.rank(game.start), 0])
    # the start's equities are each roll's best move's, averaged over the rolls
    for state, expected in (("cubeless", start["equity"]["cubeless"]),
                            ("unavailable", start["equity_no_double"]["unavailable"])):
        averaged = sum(p * max(a["equity"][state] for a in table.move_answers(
            game.start, game.legal_moves(game.start, int(t))))
            for t, p in zip(game.throws, game.probs))
        assert averaged == pytest.approx(expected, abs=1e-9)
    with h5py.File(out, "r+") as f:                 # a changed value, checksums redone
        values = f["values"][()]
        values[3, 5] += 0.01
        f["values"][...] = values
        from tabula.solver.race_table import arrays_sha256, crc32
        f["values"].attrs["crc32"] = crc32(values)
        f.attrs["sha256"] = arrays_sha256([values])
    assert not ContactTable(out).verify(sample=1000)["ok"]   # the residual shows it
    with h5py.File(out, "r+") as f:
        f["values"].attrs["crc32"] = 0
    with pytest.raises(ContactTableError, match="damaged"):
        ContactTable(out)


@pytest.mark.parametrize("name, value, message", [
    ("residual", float("nan"), "broken attributes"),
    ("tolerance", float("inf"), "broken attributes"),
    ("sweeps", -1, "broken attributes"),
    ("layers", "[[1, 1, 5]]", "not numbered over the layers"),
    ("layers", "[[1, 1, 0], [1, 2, 0]]", "not numbered over the layers"),
])
def test_a_table_whose_attributes_say_otherwise_is_refused(tmp_path, name, value, message):
    out = tmp_path / "hyper1.h5"
    solve_game(get_game("backgammon", 1), out, quiet=True, tol=1e-9)
    with h5py.File(out, "r+") as f:
        f.attrs[name] = value
    with pytest.raises(ContactTableError, match=message):
        ContactTable(out)


def compare_with_makehyper(tmp_path, checkers, blocked_as_makehyper, threshold="1e-5"):
    """(largest differences, makehyper's chances, tabula's values) over every position;
    makehyper iterates until its values change by less than `threshold` (its default)."""
    pytest.importorskip("gnubg")
    if not shutil.os.path.exists(MAKEHYPER):
        pytest.skip("makehyper (Debian's gnubg package) is not installed")
    subprocess.run([MAKEHYPER, "-c", str(checkers), "-n", "-t", threshold], cwd=tmp_path,
                   check=True, capture_output=True)
    chances, equities = read_makehyper(tmp_path / f"hyper{checkers}.bd", checkers)
    game = get_game("backgammon", checkers)
    codes, _, values, _ = contact.solve_values(game, quiet=True,
                                               blocked_as_makehyper=blocked_as_makehyper)
    records = records_of(game, codes)
    return differences(chances, equities, records, values), chances[records], values


def test_one_checker_equals_makehyper(tmp_path):
    """No roll is ever blocked with one checker: every value agrees within makehyper's
    threshold, 1e-5 (measured: 2.1e-6 at most, its float32 sums and 24-bit values)."""
    largest, chances, values = compare_with_makehyper(tmp_path, 1, False)
    assert max(largest.values()) < 1e-5
    assert np.abs(chances - values[:, :5]).max() < 1e-5


@pytest.mark.slow
def test_two_checkers_equal_makehyper_where_it_reads_blocked_rolls_its_way(tmp_path):
    """makehyper gives a roll without a legal move the opponent's no-double equity of
    the same cube state (no double of theirs); solved so, tabula agrees on every
    position within 1e-3 when makehyper stops at a change of 1e-3 (half the time of its
    default 1e-5; at that, bench_hypergammon.py --checkers 2 compares within 1e-5). By
    the rules' reading of a blocked roll the equities differ by up to 0.021."""
    largest, _, _ = compare_with_makehyper(tmp_path, 2, True, threshold="1e-3")
    assert max(largest.values()) < 1e-3


def cubeless_of_mover(table, next_codes, infos):
    """The mover's cubeless equity after each move, in plain numpy from the table."""
    game = table.game
    out = np.empty(len(next_codes))
    for j, (after, info) in enumerate(zip(next_codes, infos)):
        if info & OVER:
            out[j] = game.loss_size(np.int64(after), game.pieces)
        else:
            win, wg, wbg, lg, lbg = table.values([after])[0, :5].astype(np.float64)
            out[j] = -(2 * win - 1 + wg + wbg - lg - lbg)
    return out


def test_self_play_plays_the_best_cubeless_move_and_repeats_with_its_seed(tmp_path):
    """Games of the contact table's player (contact.best_cubeless_move) from the start:
    every step is, for some roll, a best cubeless move by the table (or a pass when the
    roll has none); the same seed gives the same positions, exploring games others."""
    out = tmp_path / "hyper1.h5"
    solve_game(get_game("backgammon", 1), out, quiet=True, tol=1e-9)
    table = ContactTable(out)
    game = table.game
    counts, codes, kinds = table.self_play(7, 0, 40, 0.0, False, 256)
    assert (counts > 0).all() and not kinds.any()
    steps = 0
    for g, n in enumerate(counts):
        played = codes[g * 256:g * 256 + n]
        assert played[0] == game.start
        for code, after in zip(played[:-1], played[1:]):
            fits = False
            for throw in game.throws:
                next_codes, infos = game.move_arrays(code, throw)
                if len(next_codes) == 0:
                    fits |= after == game.mirror(np.int64(code))
                    continue
                equities = cubeless_of_mover(table, next_codes, infos)
                best = next_codes[equities >= equities.max() - 1e-9]
                fits |= after in best
            assert fits
            steps += 1
    assert steps > 120
    def records(*args):
        counts, codes, kinds = table.self_play(*args)
        used = np.arange(256)[None, :] < counts[:, None]
        return codes.reshape(-1, 256)[used], kinds.reshape(-1, 256)[used]
    first = records(7, 0, 40, 0.0, False, 256)
    assert np.array_equal(records(7, 0, 40, 0.0, False, 256)[0], first[0])
    explored, kinds = records(7, 0, 40, 1.0, True, 256)
    assert not np.array_equal(explored, first[0]) and (kinds == 2).any()


def test_decision_worths_are_the_moves_centred_equities_and_the_net_reads_them_alike(
        hyper2):
    """A contact table's decision worths (the decision loss's targets) are each move's
    equity with the cube centred, as `tabula value` gives it, and with every_state its
    equities with the cube centred, owned and unavailable; the model's worths of the
    same moves, from the table's own values as its outputs, are the same."""
    import torch
    from tabula.datagen.decisions import decisions_for
    from tabula.training.model import ValueNet
    table = hyper2
    codes, _ = contact.numbering(table.game)
    counts, next_codes, infos, worths = decisions_for(table, codes[::50], seed=2)
    assert len(counts) > 500 and ((infos & OVER) != 0).any()
    every = table.decision_worths(counts, next_codes, infos, every_state=True)
    assert np.array_equal(every[..., 0], worths)
    for i in range(0, len(counts), 7):
        moves = [{"position": int(c), "over": bool(f & OVER)}
                 for c, f in zip(next_codes[i, :counts[i]], infos[i, :counts[i]])]
        answers = [a["equity"] for a in table.move_answers(0, moves)]
        for k, state in enumerate(("centered", "owned", "unavailable")):
            assert np.allclose(every[i, :counts[i], k], [a[state] for a in answers],
                               atol=1e-6)
    net = ValueNet("backgammon", 2, hidden=[8], rules="hyper")
    live = np.arange(next_codes.shape[1]) < counts[:, None]
    need = live & ((infos & OVER) == 0)
    unit = torch.tensor(table.values(next_codes[need]) * net.unit_scale + net.unit_shift)
    logits = torch.logit(unit.clamp(1e-7, 1 - 1e-7)).double()
    for exact in (worths[..., None], every):
        theirs = net._equity_worths(torch.tensor(need), logits, torch.tensor(exact))
        assert np.allclose(theirs.numpy()[live], exact[live], atol=1e-5)


def test_the_equity_weight_makes_an_equitys_error_weigh_that_many_times_a_chances():
    """model.equity_weight 6: the same error, in [0, 1] units, costs six times more in
    an equity column than in a chance column; at 1 all columns weigh alike (the plain
    mean); a game of one value refuses it."""
    import torch
    from tabula.training.model import ModelError, ValueNet
    names = ValueNet("backgammon", 1, hidden=[8], rules="hyper").names
    exact = torch.full((4, len(names)), 0.25).double()   # in [0, 1] units
    logits = torch.zeros_like(exact)

    def extra_cost(net, column):
        wrong = logits.clone()
        wrong[:, names.index(column)] += 1.0
        values = (exact - torch.tensor(net.unit_shift)) / torch.tensor(net.unit_scale)
        return (net._loss(wrong, values) - net._loss(logits, values)).item()
    for weight in (1.0, 6.0):
        net = ValueNet("backgammon", 1, hidden=[8], rules="hyper", equity_weight=weight)
        assert extra_cost(net, "centered") == pytest.approx(weight * extra_cost(net, "win"))
        assert extra_cost(net, "owned") == pytest.approx(extra_cost(net, "centered"))
    with pytest.raises(ModelError, match="equity_weight"):
        ValueNet("ur", 3, [8], equity_weight=6.0)
    for bad in (0.0, float("nan"), float("inf")):
        with pytest.raises(ModelError, match="equity_weight must be more than 0 and finite"):
            ValueNet("backgammon", 1, hidden=[8], rules="hyper", equity_weight=bad)


def test_the_decision_loss_in_every_cube_state_trains_and_pairs_each_state(
        hyper2, tables, ur3_data, tmp_path, capsys, monkeypatch):
    """data.every_cube_state: `tabula train` on a money table runs the decision loss in
    the mover's three cube states; that loss is the mean of one loss a state, each
    state's net worths against that state's exact ones; without decisions, or with a
    table of winning chances alone, it is refused in one line."""
    import torch
    from tabula.cli import main
    from tabula.datagen.datafile import DataFile
    from tabula.datagen.generate import generate
    from tabula.training.decisions import batch_decisions
    from tabula.training.model import ValueNet, _live
    data = tmp_path / "hyper2.h5"
    generate(hyper2, data, games=300, explore=0.3, uniform=20000, seed=5, val_frac=0.1,
             test_frac=0.1, quiet=True)
    base = ["train", "--model.hidden", "[16]", "--data.path", str(data),
            "--data.batch_size", "1024", "--trainer.max_epochs", "1",
            "--trainer.enable_progress_bar", "false", "--trainer.log_every_n_steps", "1"]
    root = tmp_path / "run"
    assert main(base + ["--data.table", str(hyper2.path), "--data.decisions", "256",
                        "--data.every_cube_state", "true", "--model.decision_weight", "1",
                        "--model.equity_weight", "6", "--trainer.default_root_dir",
                        str(root)]) == 0
    assert "train_decision_loss" in (root / "version_0" / "metrics.csv").read_text()
    assert main(base + ["--data.table", str(hyper2.path), "--data.every_cube_state", "true",
                        "--trainer.default_root_dir", str(tmp_path / "x")]) == 2
    assert "every_cube_state is a setting of data.decisions" in capsys.readouterr().err
    ur = [a.replace(str(data), str(ur3_data)) for a in base]
    assert main(ur + ["--data.table", str(tables[("ur", 3)].path), "--data.decisions", "256",
                      "--model.decision_weight", "1", "--data.every_cube_state", "true",
                      "--trainer.default_root_dir",
                      str(tmp_path / "y")]) == 2
    assert "every_cube_state needs a money table" in capsys.readouterr().err

    codes = DataFile(data).read("train", "codes")
    made = batch_decisions(hyper2, codes, 1024, 0, 64, seed=1, every_cube_state=True)
    counts, next_codes, infos, exact = made.batch(0)
    assert exact.shape[2] == 3 and not torch.equal(exact[..., 0], exact[..., 1])
    net = ValueNet("backgammon", 2, hidden=[8], rules="hyper")
    live = _live(counts, next_codes.shape[1])
    need = live & ((infos & OVER) == 0)
    worth = net._equity_worths(need, net(next_codes[need]), exact)
    each = [net._choice_loss(worth[..., s], live, exact[..., s]) for s in range(3)]
    whole, _ = net._decision_losses(counts, next_codes, infos, exact)
    assert whole.item() == pytest.approx(sum(each).item() / 3, rel=1e-5)

    # benchmarks/bench_loss_pull.py reads the run's checkpoint with its data and table
    import json
    from tests.test_benchmarks import ROOT, run_benchmark
    code, _ = run_benchmark(monkeypatch, capsys, tmp_path, "bench_loss_pull.py",
                            "--checkpoint", str(root / "version_0" / "checkpoints" / "best.ckpt"),
                            "--data", str(data), "--table", str(hyper2.path), "--positions",
                            "256", "--decisions", "64", "--every-cube-state")
    assert code in (0, None)
    rows = json.loads((ROOT / "benchmarks" / "results" / "loss_pull.json").read_text())["rows"]
    assert [(r["loss"], r["weight"]) for r in rows] == [("value loss", 1.0),
                                                       ("decision loss", 1.0)]
    assert all(0 < r["gradient norm"] < float("inf") for r in rows)
    code, err = run_benchmark(monkeypatch, capsys, tmp_path, "bench_loss_pull.py",
                              "--checkpoint", str(root / "version_0" / "checkpoints" / "best.ckpt"),
                              "--data", str(data), "--table", str(hyper2.path), "--positions",
                              str(10 ** 9), "--decisions", "1")
    assert code == 2 and "--positions must be at most the" in err

    # benchmarks/bench_hyper_residuals.py groups an exported net's errors by double hits
    # by the pips hits send back and by pointing on a blot, every position in one group
    from tabula.export.onnx_export import export
    export(root / "version_0" / "checkpoints" / "best.ckpt", tmp_path / "net.onnx", quiet=True)
    for by in ("double-hit", "hit-pips", "point-on-blot"):
        code, _ = run_benchmark(monkeypatch, capsys, tmp_path, "bench_hyper_residuals.py",
                                "--table", str(hyper2.path), "--data", str(data), "--model",
                                str(tmp_path / "net.onnx"), "--positions", "200", "--after",
                                "400", "--by", by)
        assert code in (0, None)
        result = json.loads((ROOT / "benchmarks" / "results" / "hyper_residuals_2.json")
                            .read_text())
        rows = result["rows"]
        assert result["by"] == by and sum(r["positions"] for r in rows) == result["after"] == 400
        assert rows[0]["positions"] > 0 < sum(r["positions"] for r in rows[1:])
        assert 0 < next(iter(result["mean |error|"].values())) < 1


def test_val_decision_regret_is_what_the_nets_money_choices_give_away(hyper2, tmp_path,
                                                                      capsys, monkeypatch):
    """decision_regrets (the rows of val_decision_regret): in each cube state of the
    mover, the exact equity lost by the move that the net's cubeful equities rank
    first, as eval/equities.py's move_equities (the money players' choice) ranks them;
    `tabula train validate --data.val_decisions N` reports their mean, and
    benchmarks/bench_regret_proxy.py the same mean beside a loss a game."""
    import json

    import torch
    from tabula.cli import main
    from tabula.datagen.datafile import DataFile
    from tabula.datagen.generate import generate
    from tabula.eval.equities import Equities, move_equities
    from tabula.games.cube import CENTERED, OWNED, UNAVAILABLE
    from tabula.training.data import VAL_STREAM
    from tabula.training.decisions import batch_decisions
    from tabula.training.model import ValueNet
    data = tmp_path / "hyper2.h5"
    generate(hyper2, data, games=100, explore=0.3, uniform=4000, seed=5, val_frac=0.2,
             test_frac=0.1, quiet=True)
    torch.manual_seed(0)
    net = ValueNet("backgammon", 2, hidden=[16], rules="hyper").eval()
    made = batch_decisions(hyper2, DataFile(data).read("val", "codes"), 512, 0, 128,
                           VAL_STREAM, every_cube_state=True)
    counts, next_codes, infos, exact = made.decisions
    regrets = net.decision_regrets(counts, next_codes, infos, exact).numpy().reshape(-1, 3)
    # the shots' inputs of the positions after the moves, held once (each distinct
    # position once), are those the decision loss would compute (a step's batch)
    from tabula.training.decisions import held_inputs, valued_moves
    held = held_inputs(made, hyper2.game.encoding.features)
    first = made.batch(0)
    need = valued_moves(torch.arange(first[1].shape[1]) < first[0][:, None], first[2])
    assert torch.equal(held.batch(0), hyper2.game.encoding.features(first[1][need]))

    def equities_of(codes):
        return Equities(net.predict(torch.from_numpy(codes)).detach().numpy(), net.names)
    for i in range(len(counts)):
        n = int(counts[i])
        overs = (infos[i, :n].numpy() & OVER) != 0
        for k, state in enumerate((CENTERED, OWNED, UNAVAILABLE)):
            worth = exact[i, :n, k].numpy()
            mine = move_equities(equities_of, next_codes[i, :n].numpy(), overs, state,
                                 np.where(overs, worth, 0.0))
            assert regrets[i, k] == pytest.approx(worth.max() - worth[mine.argmax()], abs=1e-9)
    assert regrets.min() >= 0 and regrets.max() > 0.01

    root = tmp_path / "run"
    assert main(["train", "--model.hidden", "[16]", "--data.path", str(data),
                 "--data.batch_size", "512", "--trainer.max_epochs", "1",
                 "--trainer.enable_progress_bar", "false", "--trainer.default_root_dir",
                 str(root)]) == 0
    capsys.readouterr()
    assert main(["train", "validate", "--model.hidden", "[16]", "--data.path", str(data),
                 "--data.batch_size", "512", "--data.table", str(hyper2.path),
                 "--data.val_decisions", "128", "--trainer.enable_progress_bar", "false",
                 "--trainer.default_root_dir", str(root), "--ckpt_path",
                 str(root / "version_0" / "checkpoints" / "best.ckpt")]) == 0
    answer = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert 0 < answer["val_decision_regret"] < 1

    # benchmarks/bench_regret_proxy.py: the same figure, beside each net's loss a game
    # (here made-up results: what is checked is the figure and the arithmetic)
    from tests.test_benchmarks import ROOT, run_benchmark
    nets = [ValueNet.from_checkpoint(root / "version_0" / "checkpoints" / "best.ckpt")[0]]
    for seed in (1, 2):
        torch.manual_seed(seed)
        nets.append(ValueNet("backgammon", 2, hidden=[16], rules="hyper"))
    given = []
    for k, one in enumerate(nets):
        torch.save({"state_dict": one.state_dict(), "hyper_parameters": dict(one.hparams)},
                   tmp_path / f"{k}.ckpt")
        (tmp_path / f"{k}.json").write_text(json.dumps({"loss_per_game_points": 0.1 * (k + 1)}))
        given.append(f"{tmp_path / f'{k}.ckpt'}={tmp_path / f'{k}.json'}")
    code, _ = run_benchmark(monkeypatch, capsys, tmp_path, "bench_regret_proxy.py", *given,
                            "--data", str(data), "--table", str(hyper2.path),
                            "--batch-size", "512", "--val-decisions", "128")
    assert code in (0, None)
    result = json.loads((ROOT / "benchmarks" / "results" / "regret_proxy.json").read_text())
    rows = result["rows"]
    assert rows[0]["val_decision_regret"] == pytest.approx(answer["val_decision_regret"],
                                                           rel=1e-4)
    assert all(r["ratio"] == pytest.approx(r["loss a game"] / r["val_decision_regret"],
                                           rel=1e-2) for r in rows)
    assert -1 <= result["pearson"] <= 1 and result["decisions"] > 0
    code, err = run_benchmark(monkeypatch, capsys, tmp_path, "bench_regret_proxy.py",
                              *given[:2], "--data", str(data), "--table", str(hyper2.path))
    assert code == 2 and "at least three networks" in err
