"""Training: a short run learns, reports its error on unseen positions, reloads."""
import json
from types import SimpleNamespace

import numpy as np
import pytest
import torch

from tabula.datagen.datafile import DataError, DataFile
from tabula.eval.search import decision_worths, first_best
from tabula.export.onnx_export import export
from tabula.games.game import AGAIN, OVER
from tabula.runtime.sampling import uniform_positions
from tabula.cli import main
from tabula.training.curves import read_metrics
from tabula.training.data import SEARCHED_STREAM, ValueData
from tabula.training.decisions import (batch_decisions, decisions_for, searched_decisions_for,
                                       valued_moves)
from tabula.training.evaluate import predict
from tabula.training.hard import wrong_choices
from tabula.training import model as model_module
from tabula.training.model import ModelError, ValueNet, torch_next_values
from tabula.training.optimizers import make_optimizer
from tabula.training.schedule import cosine_factor, cosine_to_limits


def test_short_run_beats_the_mean_and_reports_unseen_error(ur3_run, ur3_data):
    data = DataFile(ur3_data)
    result = json.loads((ur3_run / "test_error.json").read_text())
    model = ValueNet.load_from_checkpoint(result["best_checkpoint"])
    values = data.read("val", "values").astype(np.float64)
    mean = data.read("train", "values").mean()
    model_mse = np.mean((predict(model, data.read("val", "codes")) - values) ** 2)
    assert model_mse < 0.1 * np.mean((mean - values) ** 2)
    test_codes = data.read("test", "codes")
    absent = ~np.isin(test_codes, data.read("train", "codes"))
    assert result["unseen_in_training"]["records"] == absent.sum() == len(test_codes) > 0
    assert 0 < result["test"]["mean_points"] < 5
    rates = [rate for _, rate in read_metrics(ur3_run / "metrics.csv")["lr"]]
    assert len(rates) >= 2 and 0.01 > rates[0] > rates[-1] > 0   # the cosine from 0.01
    assert (ur3_run / "checkpoints" / "last.ckpt").exists()


def test_checkpoint_reloads_to_the_same_predictions(ur3_run, ur3_data):
    data = DataFile(ur3_data)
    result = json.loads((ur3_run / "test_error.json").read_text())
    model = ValueNet.load_from_checkpoint(result["best_checkpoint"])
    points = 100 * np.abs(predict(model, data.read("test", "codes"))
                          - data.read("test", "values"))
    assert points.mean() == pytest.approx(result["test"]["mean_points"], abs=1e-9)
    again = ValueNet.load_from_checkpoint(result["best_checkpoint"])
    codes = data.read("test", "codes")[:1000]
    assert np.array_equal(predict(model, codes), predict(again, codes))


def test_unknown_config_key_fails_clearly(ur3_data, tmp_path, capsys):
    config = tmp_path / "bad.yaml"
    config.write_text(f"model: {{widths: [8]}}\ndata: {{path: {ur3_data}}}\n")
    with pytest.raises(SystemExit) as stop:
        main(["train", "--config", str(config)])
    assert stop.value.code == 2
    assert "widths" in capsys.readouterr().err


def test_bad_value_fails_with_its_reason_on_one_line(ur3_data, capsys):
    with pytest.raises(SystemExit) as stop:
        main(["train", "--data.path", str(ur3_data),
              "--model.bf16_epochs", "abc"])
    assert stop.value.code == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1
    assert "model.bf16_epochs" in err and "Got value: abc" in err


def test_the_game_comes_from_the_data(ur3_data, tmp_path, capsys):
    """A config names the data; the model's game, pieces and rule set are the data
    file's (and a config that names them too is refused, not half-read)."""
    config = tmp_path / "other.yaml"
    config.write_text(f"model: {{game: senet, pieces: 2}}\ndata: {{path: {ur3_data}}}\n"
                      f"trainer: {{default_root_dir: {tmp_path}}}\n")
    assert main(["train", "--config", str(config)]) == 2
    assert "model.game comes from the data file" in capsys.readouterr().err
    assert main(["train", "--data.path", str(ur3_data), "--model.hidden", "[4]",
                 "--trainer.max_epochs", "1", "--trainer.default_root_dir",
                 str(tmp_path / "run"), "--trainer.enable_progress_bar", "false"]) == 0
    from tabula.training.model import read_checkpoint
    saved = read_checkpoint(tmp_path / "run" / "version_0" / "checkpoints" / "last.ckpt")
    hparams = saved["hyper_parameters"]
    assert (hparams["game"], hparams["pieces"], hparams["rules"]) == ("ur", 3, "finkel")


def test_decision_loss_runs_and_checks_its_table(tables, ur3_data, tmp_path, capsys):
    table = tables[("ur", 3)].path
    base = ["train", "--model.hidden", "[16]",
            "--data.path", str(ur3_data), "--data.batch_size", "2048",
            "--trainer.max_epochs", "1", "--trainer.enable_progress_bar", "false",
            "--trainer.enable_model_summary", "false", "--trainer.log_every_n_steps", "1"]
    root = tmp_path / "run"
    assert main(base + ["--data.table", str(table), "--data.decisions", "256",
                        "--model.decision_weight", "1.0", "--model.bf16_epochs", "1",
                        "--data.searched", "64", "--model.search_weight", "1.0",
                        "--model.afterstate_weight", "1.0",
                        "--trainer.default_root_dir", str(root)]) == 0
    header = (root / "version_0" / "metrics.csv").read_text().splitlines()[0]
    assert all(f"train_{loss}_loss" in header
               for loss in ("decision", "searched_decision", "afterstate"))
    assert main(base + ["--data.table", str(table), "--model.search_weight", "1.0",
                        "--trainer.default_root_dir", str(tmp_path / "y")]) == 2
    assert "model.search_weight and data.searched go together" in capsys.readouterr().err
    other = tables[("ur", 2)].path
    assert main(base + ["--data.table", str(other), "--data.decisions", "256",
                        "--trainer.default_root_dir", str(tmp_path / "x")]) == 2
    assert "is not the table" in capsys.readouterr().err


def test_decisions_carry_the_tables_move_worths(tables):
    table = tables[("ur", 3)]
    codes = uniform_positions(table.game, 500, seed=2)
    counts, next_codes, infos, worths = decisions_for(table, codes, seed=1)
    assert len(counts) > 100 and (counts >= 2).all()
    exact = decision_worths(table.game, counts, next_codes, infos, 0, table.values)
    live = np.arange(table.game.max_moves) < counts[:, None]
    assert np.abs(exact[live] - worths[live]).max() < 1e-6


def test_the_afterstate_targets_are_the_tables_values_after_the_moves(tables):
    table = tables[("ur", 3)]
    codes = uniform_positions(table.game, 500, seed=3)
    counts, next_codes, infos, worths = decisions_for(table, codes, seed=1)
    live = np.arange(table.game.max_moves) < counts[:, None]
    need = valued_moves(live, infos)
    assert need.sum() > 500 and (infos[live & ~need] & OVER).all()
    assert (infos[need] & AGAIN).any() and not (infos[need] & AGAIN).all()
    got = torch_next_values(torch.from_numpy(infos[need]), torch.from_numpy(worths[need]))
    assert np.abs(got.numpy() - table.values(next_codes[need])).max() < 1e-6
    with pytest.raises(ModelError, match="afterstate_weight needs model.decision_weight"):
        ValueNet("ur", 3, [8], afterstate_weight=1.0)


def test_decisions_made_before_training_are_each_batchs_own(tables):
    """batch_decisions makes every batch's decisions in one pass: batch i's rows are
    what decisions_for and searched_decisions_for give for that batch alone."""
    table = tables[("ur", 3)]
    codes = uniform_positions(table.game, 1000, seed=5)
    made = batch_decisions(table, codes, batch_size=96, first=0, count=40, seed=0, chunk=4)
    searched = batch_decisions(table, codes, batch_size=96, first=40, count=24,
                               seed=SEARCHED_STREAM, searched=True, chunk=3)
    assert made.decisions[2].dtype == torch.int16
    for i in range(-(-len(codes) // 96)):       # 11 batches, the last one short
        batch = codes[i * 96:(i + 1) * 96]
        alone = decisions_for(table, batch[:40], seed=i)
        assert len(alone[0]) > 0
        for got, want in zip(made.batch(i), alone):
            assert np.array_equal(got.numpy(), want)
        alone = searched_decisions_for(table, batch[40:64], seed=SEARCHED_STREAM + i)
        for got, want in zip(searched.batch(i), alone):
            assert np.array_equal(got.numpy(), want)


def test_splits_and_decisions_are_held_on_the_accelerator(tables, ur3_data):
    """Training on an accelerator, the splits and the decisions move there once and
    every batch is sliced there (the meta device stands in for a GPU); on the CPU
    they stay in memory, or in the file."""
    table = tables[("ur", 3)].path
    data = ValueData(str(ur3_data), batch_size=256, table=str(table), decisions=64,
                     searched=16)
    data.trainer = SimpleNamespace(strategy=SimpleNamespace(root_device=torch.device("meta")))
    data.setup("fit")
    batch = next(iter(data.train_dataloader()))
    tensors = [batch["codes"], batch["values"], *batch["decisions"], *batch["searched"]]
    assert all(t.device.type == "meta" for t in tensors)
    assert next(iter(data.val_dataloader()))["codes"].device.type == "meta"
    file = DataFile(ur3_data)
    for in_memory in (False, True):
        data = ValueData(str(ur3_data), batch_size=256, in_memory=in_memory)
        data.setup("fit")
        assert (data.splits["val"].held is not None) == in_memory
        batch = data.val_dataloader().dataset[2]
        assert np.array_equal(batch["codes"].numpy(), file.read("val", "codes", 512, 768))


def test_hard_decisions_are_those_the_net_chooses_wrongly(tables, ur3_run, ur3_data, tmp_path,
                                                         capsys):
    """wrong_choices agrees with the greedy net player's choices scored by the table, and
    a run with data.hard trains on its own decisions followed by wrongly chosen ones."""
    table = tables[("ur", 3)]
    model = ValueNet.load_from_checkpoint(ur3_run / "checkpoints" / "best.ckpt")
    codes = uniform_positions(table.game, 3000, seed=6)
    decisions = decisions_for(table, codes, seed=2)
    wrong = wrong_choices(model, [torch.from_numpy(a) for a in decisions]).numpy()
    counts, next_codes, infos, exact = decisions
    net = decision_worths(table.game, counts, next_codes, infos, 0, lambda c: predict(model, c))
    live = np.arange(table.game.max_moves) < counts[:, None]
    chosen = np.take_along_axis(exact, first_best(np.where(live, net, -1.0))[:, None], 1)[:, 0]
    assert np.array_equal(wrong, chosen < np.where(live, exact, -1.0).max(1) - 1e-6)
    assert 0 < wrong.sum() < len(wrong) // 2
    base = ["train", "--model.hidden", "[16]",
            "--data.path", str(ur3_data), "--data.table", str(table.path),
            "--model.decision_weight", "1", "--data.decisions", "128", "--data.hard", "32",
            "--trainer.max_epochs", "2", "--trainer.default_root_dir", str(tmp_path)]
    assert main(base) == 0
    header = (tmp_path / "version_0" / "metrics.csv").read_text().splitlines()[0]
    assert "hard_share" in header
    assert main(base[:-6] + ["--data.hard", "32", "--data.decisions", "0"]) == 2
    assert "set data.decisions too" in capsys.readouterr().err


def test_init_from_starts_with_the_checkpoints_weights(ur3_run, ur3_data):
    best = ur3_run / "checkpoints" / "best.ckpt"
    loaded = ValueNet.load_from_checkpoint(best)
    started = ValueNet("ur", 3, [32, 32], init_from=str(best))
    codes = DataFile(ur3_data).read("test", "codes")[:500]
    assert np.array_equal(predict(loaded, codes), predict(started, codes))


def test_init_from_reads_the_weights_of_an_exported_model(ur3_run, ur3_data, tmp_path):
    best = ur3_run / "checkpoints" / "best.ckpt"
    export(best, tmp_path / "net.onnx", int8=True, quiet=True)
    started = ValueNet("ur", 3, [32, 32], init_from=str(tmp_path / "net.onnx"))
    codes = DataFile(ur3_data).read("test", "codes")[:500]
    assert np.array_equal(predict(ValueNet.load_from_checkpoint(best), codes),
                          predict(started, codes))
    with pytest.raises(ModelError, match="int8 model"):
        ValueNet("ur", 3, [32, 32], init_from=str(tmp_path / "net.int8.onnx"))
    with pytest.raises(ModelError, match="does not fit"):
        ValueNet("ur", 3, [16], init_from=str(tmp_path / "net.onnx"))
    (tmp_path / "junk.onnx").write_bytes(b"not a model")
    with pytest.raises(ModelError, match="not an ONNX file"):
        ValueNet("ur", 3, [32, 32], init_from=str(tmp_path / "junk.onnx"))


def test_the_rate_follows_a_cosine_over_steps_or_time_whichever_ends_first():
    weights = [torch.nn.Parameter(torch.zeros(1))]
    plain = torch.optim.lr_scheduler.CosineAnnealingLR(torch.optim.SGD(weights, lr=2.0), 10)
    ours = cosine_to_limits(torch.optim.SGD(weights, lr=2.0), 10, None)
    for _ in range(10):
        assert ours.get_last_lr()[0] == pytest.approx(plain.get_last_lr()[0], abs=1e-12)
        plain.step()
        ours.step()
    clock = {"elapsed": 30.0}
    timer = SimpleNamespace(time_elapsed=lambda: clock["elapsed"],
                            time_remaining=lambda: 100.0 - clock["elapsed"])
    timed = cosine_to_limits(torch.optim.SGD(weights, lr=2.0), 10, timer)
    timed.step()                                  # step 1 of 10, 30% of the time
    assert timed.get_last_lr()[0] == pytest.approx(2.0 * cosine_factor(0.3))
    clock["elapsed"] = 5.0                        # the steps lead: 2 of 10
    timed.step()
    assert timed.get_last_lr()[0] == pytest.approx(2.0 * cosine_factor(0.2))
    clock["elapsed"] = 120.0                      # past the limit: the rate is zero
    timed.step()
    assert timed.get_last_lr()[0] == 0.0


def _predictions_with_and_without_a_limit(train_args, max_time, codes, root):
    """The last checkpoint's predictions on codes of `tabula train train_args` run with
    --trainer.max_time max_time, then without a limit."""
    predictions = []
    for limit, folder in ((["--trainer.max_time", max_time], "timed"), ([], "untimed")):
        run = root / folder
        assert main([*train_args, *limit, "--trainer.default_root_dir", str(run)]) == 0
        ran = ValueNet.load_from_checkpoint(run / "version_0" / "checkpoints" / "last.ckpt")
        predictions.append(predict(ran, codes))
    return predictions


def test_a_fit_with_a_time_limit_schedules_by_its_timer(ur3_run, ur3_data, tmp_path,
                                                         monkeypatch):
    """With the limit's time all used (time_fraction 1 wherever there is a timer) the
    rate is zero from the first step, so the weights stay as they started; without a
    limit the same run learns."""
    monkeypatch.setattr("tabula.training.schedule.time_fraction",
                        lambda timer: 0.0 if timer is None else 1.0)
    best = ur3_run / "checkpoints" / "best.ckpt"
    start = ValueNet.load_from_checkpoint(best)
    codes = DataFile(ur3_data).read("test", "codes")[:500]
    base = ["train", "--model.hidden",
            "[32, 32]", "--model.init_from", str(best), "--data.path", str(ur3_data),
            "--trainer.max_epochs", "1", "--trainer.enable_progress_bar", "false",
            "--trainer.enable_model_summary", "false"]
    timed, untimed = _predictions_with_and_without_a_limit(base, "00:00:10:00", codes,
                                                           tmp_path)
    assert np.array_equal(timed, predict(start, codes))
    assert not np.array_equal(untimed, predict(start, codes))


def test_a_time_limit_the_steps_end_before_leaves_the_run_as_it_was(ur3_data, tmp_path):
    """Where the steps end first (the machine a recipe was tuned on), the schedule is
    the plain cosine over steps: the same seed gives the same weights."""
    base = ["train", "--model.hidden", "[16]",
            "--data.path", str(ur3_data), "--trainer.max_epochs", "2", "--seed_everything",
            "7", "--trainer.enable_progress_bar", "false", "--trainer.enable_model_summary",
            "false"]
    codes = DataFile(ur3_data).read("test", "codes")[:500]
    assert np.array_equal(*_predictions_with_and_without_a_limit(base, "00:10:00:00", codes,
                                                                tmp_path))


def test_a_run_with_a_schedule_of_an_older_tabula_is_not_resumed(ur3_run, ur3_data,
                                                               tmp_path, capsys):
    """Runs before training/schedule.py kept a CosineAnnealingLR's state: resuming one
    is refused on one line; validating it still works."""
    checkpoint = torch.load(ur3_run / "checkpoints" / "last.ckpt", weights_only=False)
    weights = [torch.nn.Parameter(torch.zeros(1))]
    checkpoint["lr_schedulers"] = [torch.optim.lr_scheduler.CosineAnnealingLR(
        torch.optim.SGD(weights, lr=1.0), 10).state_dict()]
    old = tmp_path / "old.ckpt"
    torch.save(checkpoint, old)
    base = ["--model.hidden", "[32, 32]",
            "--data.path", str(ur3_data), "--trainer.enable_progress_bar", "false",
            "--trainer.default_root_dir", str(tmp_path), "--ckpt_path", str(old)]
    capsys.readouterr()
    assert main(["train", "fit", *base, "--trainer.max_epochs", "5"]) == 2
    assert "cannot be resumed" in capsys.readouterr().err.strip().splitlines()[-1]
    assert main(["train", "validate", *base]) == 0


def test_bad_model_settings_fail_with_one_line(ur3_run, ur3_data, tmp_path, capsys):
    base = ["train", "--data.path", str(ur3_data),
            "--trainer.default_root_dir", str(tmp_path)]
    assert main(base + ["--model.activation", "foo"]) == 2
    assert "activation must be one of" in capsys.readouterr().err
    best = ur3_run / "checkpoints" / "best.ckpt"
    assert main(base + ["--model.hidden", "[8]", "--model.init_from", str(best)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "does not fit this model" in err[0] and "size mismatch" in err[0]


def test_bf16_epochs_run_hidden_layers_in_bfloat16_only_while_training(ur3_data,
                                                                       monkeypatch):
    monkeypatch.setattr(model_module, "fast_bfloat16", lambda device: True)
    model = ValueNet("ur", 3, [64, 64], bf16_epochs=1)
    codes = torch.from_numpy(DataFile(ur3_data).read("test", "codes")[:1000])
    exact = model(codes)
    model.trainer = SimpleNamespace(current_epoch=0)
    model.on_train_epoch_start()
    fast = model(codes)
    assert fast.shape == exact.shape and fast.dtype == torch.float32
    assert 0 < (fast - exact).abs().max() < 0.05
    fast.sum().backward()
    assert model.mlp[0].weight.grad.dtype == torch.float32
    assert model.mlp[0].weight.grad.abs().sum() > 0
    model.eval()
    assert torch.equal(model(codes), exact)
    model.train()
    model.trainer.current_epoch = 1
    model.on_train_epoch_start()
    assert torch.equal(model(codes), exact)


def test_bf16_epochs_are_float32_with_a_warning_where_bfloat16_is_slow(ur3_data, tmp_path,
                                                                       monkeypatch, capsys):
    monkeypatch.setattr(model_module, "fast_bfloat16", lambda device: False)
    model = ValueNet("ur", 3, [64, 64], bf16_epochs=1)
    model.trainer = SimpleNamespace(current_epoch=0)
    model.on_train_epoch_start()
    assert not model.bf16
    assert main(["train", "--model.hidden", "[8]",
                 "--model.bf16_epochs", "1", "--data.path", str(ur3_data),
                 "--trainer.max_steps", "2", "--trainer.enable_progress_bar", "false",
                 "--trainer.default_root_dir", str(tmp_path)]) == 0
    assert "model.bf16_epochs ignored" in capsys.readouterr().err


def test_searched_worths_are_the_search_players(tables, ur3_run):
    table = tables[("ur", 3)]
    model = ValueNet.load_from_checkpoint(ur3_run / "checkpoints" / "best.ckpt").eval()
    codes = uniform_positions(table.game, 300, seed=4)
    counts, next_codes, infos, worths, *leaves = searched_decisions_for(table, codes, seed=1)
    live = np.arange(table.game.max_moves) < counts[:, None]
    assert len(leaves[0]) > live.sum() // 2
    with torch.no_grad():
        net = model.searched_worths(torch.from_numpy(live), torch.from_numpy(infos),
                                    *(torch.from_numpy(a) for a in leaves)).double().numpy()
    player = decision_worths(table.game, counts, next_codes, infos, 1,
                             lambda c: predict(model, c))
    assert np.abs(net[live] - player[live]).max() < 1e-6
    exact = decision_worths(table.game, counts, next_codes, infos, 1, table.values)
    assert np.abs(exact[live] - worths[live]).max() < 1e-6


@pytest.mark.parametrize("setting,message", [
    (["--trainer.max_epochs", "-5"], "max_epochs` must be a non-negative integer or -1"),
    (["--trainer.max_epochs", "0"], "trainer.max_epochs must be at least 1"),
    (["--model.hidden", "[-5]"], "model.hidden must list"),
    (["--model.hidden", "[0]"], "model.hidden must list"),
    (["--model.hidden", "[]"], "model.hidden must list"),
    (["--model.lr", "0"], "model.lr must be more than 0"),
    (["--data.batch_size", "0"], "data.batch_size must be at least 1"),
    (["--patience", "-1"], "patience must be 0 or more"),
    (["--seed_everything", "-1"], "seed_everything must be 0..4294967295"),
])
def test_bad_settings_are_one_line_without_lightnings_banners(ur3_data, tmp_path, capsys,
                                                                setting, message):
    assert main(["train", "--data.path",
                 str(ur3_data), "--trainer.default_root_dir", str(tmp_path), *setting]) == 2
    captured = capsys.readouterr()
    assert captured.err.strip().splitlines() == [captured.err.strip()], captured.err
    assert message in captured.err and "Seed set" not in captured.err + captured.out
    assert not any(tmp_path.iterdir())   # no run folder for a run that never started


def test_a_data_file_with_an_empty_split_is_refused(tables, tmp_path, capsys):
    from tabula.datagen.generate import generate
    data = tmp_path / "tiny.h5"
    generate(tables[("ur", 2)], data, games=0, explore=0.3, uniform=50, seed=1,
             val_frac=0.0, test_frac=0.1, quiet=True)
    assert main(["train", "--data.path",
                 str(data), "--trainer.default_root_dir", str(tmp_path / "run")]) == 2
    assert "no positions in its val split" in capsys.readouterr().err


def test_each_run_gets_its_own_folder(ur3_data, tmp_path, capsys):
    args = ["train", "--model.hidden", "[8]",
            "--data.path", str(ur3_data), "--trainer.max_epochs", "1",
            "--trainer.enable_progress_bar", "false", "--trainer.enable_model_summary", "false",
            "--trainer.default_root_dir", str(tmp_path)]
    assert main(args) == 0
    first = (tmp_path / "version_0" / "test_error.json").read_text()
    assert main(args + ["--model.hidden", "[4]"]) == 0
    assert (tmp_path / "version_0" / "test_error.json").read_text() == first
    assert json.loads((tmp_path / "version_1" / "test_error.json").read_text())["hidden"] == [4]
    assert (tmp_path / "version_1" / "checkpoints" / "best.ckpt").is_file()
    assert (tmp_path / "version_1" / "config.yaml").is_file()
    assert "run folder " + str(tmp_path / "version_1") in capsys.readouterr().out


def test_every_tensor_of_the_losses_is_made_where_its_inputs_live(tables):
    """With the default device set to 'meta', a tensor made without a device would be a
    meta tensor, and mixing it with the CPU batch would fail: the losses must run."""
    import torch

    from tabula.training.decisions import decisions_for, searched_decisions_for
    table = tables[("ur", 3)]
    codes = uniform_positions(table.game, 256, seed=4)
    model = ValueNet("ur", 3, [16], decision_weight=1.0, afterstate_weight=1.0,
                     search_weight=1.0, bf16_epochs=1)
    decisions = [torch.from_numpy(p) for p in decisions_for(table, codes[:128], seed=1)]
    searched = [torch.from_numpy(p) for p in searched_decisions_for(table, codes[128:],
                                                                      seed=2)]
    previous = torch.get_default_device()
    torch.set_default_device("meta")
    try:
        model.train()
        model.bf16 = True
        losses = [model._loss(model(torch.from_numpy(codes)),
                              torch.full((len(codes),), 0.5, device="cpu")),
                  *model._decision_losses(*decisions), model._searched_decision_loss(*searched)]
    finally:
        torch.set_default_device(previous)
    assert all(loss.device.type == "cpu" and torch.isfinite(loss) for loss in losses)


def test_the_decision_loss_towards_visit_shares_is_their_cross_entropy(tables):
    """Given a search's visit shares, the decision loss is the cross-entropy from them
    to the net's softmax(worth / t), and the table's worths are not used; at the
    shares of the table's own distribution it is the table's loss."""
    import torch

    from tabula.training.decisions import decisions_for
    table = tables[("ur", 3)]
    model = ValueNet("ur", 3, [16], decision_weight=1.0, decision_temperature=0.05)
    counts, next_codes, infos, exact = (torch.from_numpy(p) for p in decisions_for(
        table, uniform_positions(table.game, 256, seed=4), seed=1))
    live = torch.arange(next_codes.shape[1]) < counts[:, None]
    shares = torch.rand(exact.shape).where(live, 0.0)
    shares = shares / shares.sum(1, keepdim=True)
    with torch.no_grad():
        loss, _ = model._decision_losses(counts, next_codes, infos, exact, shares)
        worth = model._move_worths(infos, live, lambda need: torch.sigmoid(model(next_codes[need])))
        log_net = torch.log_softmax(torch.where(live, worth / 0.05, -torch.inf), dim=1)
        want = -(shares * torch.where(live, log_net, 0.0)).sum(1).mean()
        assert torch.isclose(loss, want)
        assert not torch.isclose(loss, model._decision_losses(counts, next_codes, infos,
                                                              exact)[0])
        table_shares = torch.softmax(torch.where(live, exact / 0.05, -torch.inf), dim=1)
        assert torch.isclose(model._decision_losses(counts, next_codes, infos, exact + 1,
                                                    table_shares)[0],
                             model._decision_losses(counts, next_codes, infos, exact)[0])


def test_asking_for_a_gpu_where_there_is_none_is_one_line(ur3_data, tmp_path, capsys):
    import torch
    if torch.cuda.is_available():
        pytest.skip("this machine has a GPU")
    assert main(["train", "--data.path",
                 str(ur3_data), "--trainer.accelerator", "gpu",
                 "--trainer.default_root_dir", str(tmp_path)]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "sees no GPU here" in err


def test_a_run_stopped_within_an_epoch_reports_the_steps_it_trained(ur3_data, tmp_path):
    """A run stopped mid-epoch (by max_steps here, by its time limit in the recipes)
    reports the part of an epoch it trained and the records it drew, not whole epochs;
    stopped before it first validated, it ends without a val_loss instead of failing."""
    result = _quiet_fit(ur3_data, tmp_path, "--data.batch_size", "256",
                        "--trainer.max_steps", "3")
    batches = -(-result["train_records"] // 256)
    assert batches > 3 and result["steps"] == 3
    assert result["epochs"] == round(3 / batches, 2) < 1
    assert result["samples_per_second"] * result["train_seconds"] == pytest.approx(3 * 256)


def test_muon_steps_the_inner_matrices_and_a_muon_run_resumes(ur3_data, tmp_path, capsys):
    """model.optimizer muon: Muon takes the weights between hidden layers, AdamW every
    other parameter, one schedule sets both rates, and a stopped run resumes with both
    optimizers' state (with AdamW instead: refused on one line); a net without such
    weights, or another name, is refused."""
    base = ["--model.hidden", "[16, 8]", "--model.optimizer", "muon", "--model.lr", "0.01",
            "--data.path", str(ur3_data), "--trainer.enable_progress_bar", "false",
            "--trainer.enable_model_summary", "false", "--trainer.default_root_dir",
            str(tmp_path)]
    assert main(["train", "fit", *base, "--trainer.max_epochs", "2"]) == 0
    last = tmp_path / "version_0" / "checkpoints" / "last.ckpt"
    adamw, muon = torch.load(last, weights_only=False)["optimizer_states"][0]["parts"]
    assert [s["momentum_buffer"].shape for s in muon["state"].values()] == [(8, 16)]
    assert len(adamw["state"]) == 5          # the other two weights and the three biases
    assert muon["param_groups"][0]["lr"] == adamw["param_groups"][0]["lr"] < 0.01
    assert main(["train", "fit", *base, "--trainer.max_epochs", "3", "--ckpt_path",
                 str(last)]) == 0
    assert json.loads((tmp_path / "version_1" / "test_error.json").read_text())["epochs"] == 3
    # a schedule over a loaded optimizer (as a resumed run's) sets the rates its parts use
    linears = [torch.nn.Linear(4, 8), torch.nn.Linear(8, 8), torch.nn.Linear(8, 2)]
    weights = [p for layer in linears for p in layer.parameters()]
    loaded = make_optimizer("muon", linears, weights, 0.01, 0.0)
    loaded.load_state_dict(make_optimizer("muon", linears, weights, 0.01, 0.0).state_dict())
    torch.optim.lr_scheduler.LambdaLR(loaded, lambda step: 0.5)
    assert [group["lr"] for part in loaded.parts for group in part.param_groups] == [0.005] * 2
    adamw_args = [{"muon": "adamw"}.get(arg, arg) for arg in base]
    capsys.readouterr()
    assert main(["train", "fit", *adamw_args, "--trainer.max_epochs", "4", "--ckpt_path",
                 str(last)]) == 2
    err = capsys.readouterr().err.strip()
    assert "trained with model.optimizer muon, not adamw" in err and len(err.splitlines()) == 1
    with pytest.raises(ModelError, match="two layers or more"):
        ValueNet("ur", 3, hidden=[16], optimizer="muon")
    with pytest.raises(ModelError, match="adamw, muon"):
        ValueNet("ur", 3, hidden=[16], optimizer="sgd")


def test_last_ckpt_is_the_last_epoch_where_val_loss_stopped_improving(ur3_data, tmp_path):
    """At a rate too small to move a float32 weight, val_loss never improves after the
    first epoch: best.ckpt stays at epoch 0, last.ckpt (what a stopped run resumes
    from) is the last epoch trained."""
    _quiet_fit(ur3_data, tmp_path, "--model.lr", "1e-12", "--trainer.max_epochs", "3")
    folder = tmp_path / "version_0" / "checkpoints"
    assert torch.load(folder / "best.ckpt", weights_only=False)["epoch"] == 0
    assert torch.load(folder / "last.ckpt", weights_only=False)["epoch"] == 2


def test_fit_resumes_and_validate_and_test_measure_a_checkpoint(ur3_data, tmp_path, capsys,
                                                                caplog):
    """Lightning's conventions: fit | validate | test, --ckpt_path, the user's logger."""
    base = ["--model.hidden", "[8]",
            "--data.path", str(ur3_data), "--trainer.enable_progress_bar", "false",
            "--trainer.enable_model_summary", "false", "--trainer.default_root_dir",
            str(tmp_path)]
    assert main(["train", "fit", *base, "--trainer.max_epochs", "1"]) == 0
    last = tmp_path / "version_0" / "checkpoints" / "last.ckpt"
    assert main(["train", "fit", *base, "--trainer.max_epochs", "2", "--ckpt_path",
                 str(last)]) == 0
    resumed = json.loads((tmp_path / "version_1" / "test_error.json").read_text())
    assert resumed["epochs"] == 2
    # the speed counts what this fit trained: the second epoch's records only
    assert resumed["samples_per_second"] * resumed["train_seconds"] == \
        pytest.approx(resumed["train_records"])
    epochs = {line.split(",")[0] for line in
              (tmp_path / "version_1" / "metrics.csv").read_text().splitlines()[1:]}
    assert epochs == {"1"}                          # only the second epoch ran
    capsys.readouterr()
    for subcommand, key in (("validate", "val_loss"), ("test", "test_loss")):
        assert main(["train", subcommand, *base, "--ckpt_path", str(last)]) == 0
        answer = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
        assert answer["subcommand"] == subcommand and answer[key] > 0
    caplog.clear()
    assert main(["train", "test", *base]) == 2
    assert "needs --ckpt_path" in capsys.readouterr().err
    assert "Seed set" not in caplog.text        # refused before Lightning's banner
    wider = [{"[8]": "[16]"}.get(arg, arg) for arg in base]   # a net the weights do not fit
    for subcommand in ("validate", "fit"):
        assert main(["train", subcommand, *wider, "--ckpt_path", str(last)]) == 2
        err = capsys.readouterr().err.strip()
        assert "do not fit" in err and "size mismatch" in err and len(err.splitlines()) == 1
        assert "Seed set" not in caplog.text
    assert main(["train", "fit", *base, "--trainer.max_epochs", "1",
                 "--trainer.logger", "false"]) == 0
    assert not (tmp_path / "version_4" / "metrics.csv").exists()
    assert (tmp_path / "version_4" / "test_error.json").is_file()


def test_train_sources_keep_only_those_training_records(tables, ur3_data, tmp_path, capsys):
    """--data.train_sources '[self-play]' trains on the self-play records alone: every
    training batch, and every decision, comes from them; the validation and test splits
    stay whole, and the error on unseen positions counts only the records kept."""
    file = DataFile(ur3_data)
    source = file.read("train", "source")
    self_play = file.read("train", "codes")[source == 0]
    assert 0 < len(self_play) < len(source)
    table = tables[("ur", 3)]
    data = ValueData(str(ur3_data), batch_size=256, table=str(table.path), decisions=32,
                     train_sources=["self-play"])
    data.setup("fit")
    train = data.splits["train"]
    assert len(train) == -(-len(self_play) // 256)
    assert np.array_equal(torch.cat([train[i]["codes"] for i in range(len(train))]).numpy(),
                          self_play)
    made = batch_decisions(table, self_play, 256, 0, 32, 0, searched=False, quiet=True)
    assert np.array_equal(train.decisions.starts, made.starts)
    assert all(torch.equal(a, b) for a, b in zip(train.decisions.decisions, made.decisions))
    assert data.splits["val"].size == file.sizes["val"]
    result = _quiet_fit(ur3_data, tmp_path, "--data.train_sources", "[self-play]",
                        "--trainer.max_epochs", "1")
    assert result["train_records"] == len(self_play)
    unseen = ~np.isin(file.read("test", "codes"), self_play)
    assert result["unseen_in_training"]["records"] == unseen.sum()
    for sources, said in ((["selfplay"], "must name some of self-play, uniform, alternative"),
                          (["alternative"], "has no training records of alternative")):
        assert main(["train", "--data.path",
                     str(ur3_data), "--data.train_sources", json.dumps(sources),
                     "--trainer.default_root_dir", str(tmp_path / "refused")]) == 2
        assert said in capsys.readouterr().err
    with pytest.raises(DataError, match="cannot follow data.train_sources"):
        ValueData(str(ur3_data), decisions=32, decision_set="unread.h5",
                  train_sources=["self-play"])


def test_val_sources_keep_only_those_validation_records(ur3_data):
    """data.val_sources '[uniform]' validates on the uniform records alone, in file
    order; the training and test splits stay whole."""
    file = DataFile(ur3_data)
    source = file.read("val", "source")
    uniform = file.read("val", "codes")[source == 1]
    assert 0 < len(uniform) < len(source)
    data = ValueData(str(ur3_data), batch_size=256, val_sources=["uniform"])
    data.setup("validate")
    val = data.splits["val"]
    assert np.array_equal(torch.cat([val[i]["codes"] for i in range(len(val))]).numpy(),
                          uniform)
    assert (data.sizes["train"], data.sizes["test"]) == (file.sizes["train"],
                                                         file.sizes["test"])
    with pytest.raises(DataError, match="has no validation records of alternative"):
        ValueData(str(ur3_data), val_sources=["alternative"])


def test_inputs_held_in_memory_train_the_same_net(ur3_data, tmp_path):
    """data.features_in_memory holds each split's network inputs, the encoding of its
    codes, and a run that reads them trains the same weights as one that computes them
    at every step."""
    file = DataFile(ur3_data)
    data = ValueData(str(ur3_data), batch_size=256, features_in_memory=True)
    data.setup("fit")
    for split in ("train", "val"):
        batch = data.splits[split][1]
        assert torch.equal(batch["features"], file.game.encoding.features(batch["codes"]))
    nets = []
    for held in ("false", "true"):
        _quiet_fit(ur3_data, tmp_path / held, "--data.in_memory", "true",
                   "--data.features_in_memory", held, "--trainer.max_epochs", "2")
        nets.append(ValueNet.load_from_checkpoint(
            tmp_path / held / "version_0" / "checkpoints" / "last.ckpt"))
    codes = file.read("test", "codes")[:500]
    assert np.array_equal(predict(nets[0], codes), predict(nets[1], codes))
    assert not np.array_equal(predict(nets[0], codes),
                              predict(ValueNet("ur", 3, [8]), codes))


def test_decision_inputs_held_in_memory_train_the_same_net(tables, ur3_data, tmp_path,
                                                           capsys):
    """data.decision_features_in_memory holds the inputs of the positions after every
    training decision's moves, batch i's in the order the decision loss values them, and
    a run that reads them trains the same weights as one that computes them; without
    data.decisions, or with data.hard, it is refused in one line."""
    from tabula.training.decisions import held_inputs, valued_moves
    table = tables[("ur", 3)]
    made = batch_decisions(table, DataFile(ur3_data).read("train", "codes"), 256, 0, 64, 0)
    held = held_inputs(made, table.game.encoding.features)
    assert len(held.inputs) < held.starts[-1]        # each distinct position once
    for i in (0, len(made.starts) - 2):
        counts, next_codes, infos, _ = made.batch(i)
        need = valued_moves(torch.arange(next_codes.shape[1]) < counts[:, None], infos)
        assert torch.equal(held.batch(i), table.game.encoding.features(next_codes[need]))
    data = ValueData(str(ur3_data), batch_size=256, table=str(table.path), decisions=64,
                     decision_features_in_memory=True)
    data.setup("fit")
    assert torch.equal(data.splits["train"][0]["decision_features"],
                       data.splits["train"].decision_features.batch(0))
    nets = []
    for kept in ("false", "true"):
        _quiet_fit(ur3_data, tmp_path / kept, "--data.table", str(table.path),
                   "--data.decisions", "64", "--model.decision_weight", "1",
                   "--data.decision_features_in_memory", kept, "--trainer.max_epochs", "2")
        nets.append(ValueNet.load_from_checkpoint(
            tmp_path / kept / "version_0" / "checkpoints" / "last.ckpt"))
    codes = DataFile(ur3_data).read("test", "codes")[:500]
    assert np.array_equal(predict(nets[0], codes), predict(nets[1], codes))
    capsys.readouterr()
    for settings in ([], ["--data.decisions", "64", "--model.decision_weight", "1",
                          "--data.hard", "16"]):
        assert main(["train", "--model.hidden", "[8]", "--data.path", str(ur3_data),
                     "--data.table", str(table.path), "--data.decision_features_in_memory",
                     "true", "--trainer.default_root_dir", str(tmp_path / "x"),
                     *settings]) == 2
        assert "decision_features_in_memory holds the inputs of data.decisions" in \
            capsys.readouterr().err


def _quiet_fit(data, root, *settings) -> dict:
    """`tabula train` of a tiny Ur 3 net with `settings`, without progress bar or
    summary, in root; its test_error.json."""
    assert main(["train", "--model.hidden",
                 "[8]", "--data.path", str(data), "--trainer.enable_progress_bar", "false",
                 "--trainer.enable_model_summary", "false", "--trainer.default_root_dir",
                 str(root), *settings]) == 0
    return json.loads((root / "version_0" / "test_error.json").read_text())


def test_val_decision_regret_is_logged_and_can_pick_the_best_checkpoint(tables, ur3_data,
                                                                        tmp_path, capsys):
    """data.val_decisions: each validation logs val_decision_regret, the mean exact
    winning chance the net's greedy choices give away; with --monitor
    val_decision_regret, best.ckpt is the epoch where it was lowest. Without the
    table, or without the decisions, or a metric that is not logged: one line, exit 2."""
    table = str(tables[("ur", 3)].path)
    _quiet_fit(ur3_data, tmp_path, "--data.table", table, "--data.val_decisions", "256",
               "--monitor", "val_decision_regret", "--trainer.max_epochs", "3")
    regrets = [v for _, v in read_metrics(tmp_path / "version_0" / "metrics.csv")
               ["val_decision_regret"]]
    assert len(regrets) == 3 and all(0 < r < 1 for r in regrets)
    best = torch.load(tmp_path / "version_0" / "checkpoints" / "best.ckpt", weights_only=False)
    assert best["epoch"] == int(np.argmin(regrets))
    kept_by = [v for k, v in best["callbacks"].items() if k.startswith("ModelCheckpoint")
               and v["monitor"] is not None]
    assert [v["monitor"] for v in kept_by] == ["val_decision_regret"]
    assert float(kept_by[0]["best_model_score"]) == pytest.approx(min(regrets))
    base = ["train", "--model.hidden", "[8]", "--data.path", str(ur3_data),
            "--trainer.default_root_dir", str(tmp_path / "refused")]
    capsys.readouterr()
    for settings, said in ((["--data.val_decisions", "64"], "give data.table"),
                           (["--monitor", "val_decision_regret"], "set it"),
                           (["--monitor", "val_regret"], "--monitor must be one of"),
                           (["--data.table", table, "--data.val_decisions", "-1"],
                            "at least 0")):
        assert main(base + settings) == 2
        err = capsys.readouterr().err
        assert said in err and len(err.strip().splitlines()) == 1, err
