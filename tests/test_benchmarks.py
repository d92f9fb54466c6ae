"""The benchmark scripts run as `tabula` runs a command: a bad input is one line
and exit status 2, not a traceback."""
import runpy
import sys
from pathlib import Path

import pytest

from benchmarks.common import run_script
from tabula.infra.errors import TabulaError

ROOT = Path(__file__).resolve().parent.parent


def test_run_script_exit_status(monkeypatch, capsys):
    monkeypatch.setattr(sys, "argv", ["bench_x.py"])
    with pytest.raises(SystemExit) as done:
        run_script(lambda: None)
    assert done.value.code in (0, None)

    def refuse():
        raise TabulaError("no table file t.h5")
    with pytest.raises(SystemExit) as done:
        run_script(refuse)
    assert done.value.code == 2
    assert capsys.readouterr().err == "bench_x.py: error: no table file t.h5\n"


@pytest.mark.parametrize("script,args,message", [
    ("bench_lookup.py", ["missing.h5"], "no table file"),
    pytest.param("bench_train_steps.py", ["missing.h5", "missing.h5"], "no data file",
                 marks=pytest.mark.slow),   # imports torch and Lightning first
    ("bench_mcts_regret.py", ["--table", "missing.h5", "--model", "m.onnx"], "no table file"),
    ("bench_search_match.py", ["--model", "missing.onnx"], "no model file"),
    ("bench_search_match.py", ["--ms=nan"], "--ms must be a positive number"),
    ("bench_search_match.py", ["--table", "missing.h5"], "no table file"),
    ("bench_search_ceiling.py", ["--tables", "missing.h5"], "no table file"),
    ("bench_backgammon_moves.py", ["--positions=0"], "--positions and --speed"),
    ("bench_backgammon_gnubg.py", ["--model", "missing.onnx"], "no model file"),
    ("bench_backgammon_gnubg.py", ["--model", "m.onnx", "--pairs=0"], "--pairs and --every"),
    ("bench_bear_offs.py", ["--model", "missing.onnx"], "no model file"),
    ("bench_bear_offs.py", ["--model", "m.onnx", "--pairs=0"], "--pairs takes"),
    ("bench_hypergammon.py", ["--checkers=4"], "--checkers takes 1, 2 and 3"),
    ("bench_regret_breakdown.py", ["--table", "missing.h5", "--player", "perfect"],
     "no table file"),
    ("bench_regret_breakdown.py", ["--table", "missing.h5", "--player", "perfect",
                                   "--games=0"], "--games must be at least 1"),
    ("bench_hypergammon.py", ["--makehyper-file", "missing.bd"], "no file"),
    ("bench_search_ceiling.py", ["--tables", "missing.h5", "--pairs=0"],
     "--ms must be a positive number of milliseconds, --pairs"),
    ("bench_loss_pull.py", ["--checkpoint", "c.ckpt", "--data", "d.h5", "--table", "t.h5",
                            "--decisions=0"], "--decisions must be 1 to --positions"),
    ("bench_loss_pull.py", ["--checkpoint", "c.ckpt", "--data", "d.h5", "--table", "t.h5",
                            "--seed=-1"], "--seed must be 0 or more"),
    ("bench_regret_proxy.py", ["c.ckpt=r.json", "--data", "d.h5", "--table", "t.h5",
                               "--val-decisions=0"], "--val-decisions must be 1 to"),
    ("bench_regret_proxy.py", ["c.ckpt", "--data", "d.h5", "--table", "t.h5"],
     "give each network as CKPT=REGRET.json"),
    ("bench_hyper_residuals.py", ["--table", "t.h5", "--data", "d.h5", "--model", "m.onnx",
                                  "--after=0"], "--after must be at least 1"),
    ("bench_hyper_residuals.py", ["--table", "missing.h5", "--data", "d.h5", "--model",
                                  "m.onnx"], "no table file"),
    pytest.param("bench_loss_pull.py", ["--checkpoint", "missing.ckpt", "--data", "d.h5",
                                        "--table", "t.h5"], "no checkpoint file",
                 marks=pytest.mark.slow),   # imports torch and Lightning first
])
def test_missing_file_is_one_line(tmp_path, monkeypatch, capsys, script, args, message):
    code, err = run_benchmark(monkeypatch, capsys, tmp_path, script,
                              *(a if a.startswith("--") else str(tmp_path / a) for a in args))
    assert code == 2
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"{script}: error: {message}")


def test_a_file_that_is_not_makehyper_s_is_refused_before_the_solve(tmp_path, monkeypatch,
                                                                    capsys):
    """bench_hypergammon --makehyper-file reads the file's size first: one line, at once."""
    bad = tmp_path / "hyper3.bd"
    bad.write_bytes(b"\0" * 1000)
    code, err = run_benchmark(monkeypatch, capsys, tmp_path, "bench_hypergammon.py",
                              "--makehyper-file", str(bad), "--sample", "10")
    assert code == 2
    assert err.strip() == (f"bench_hypergammon.py: error: {bad} is not a makehyper "
                           "file of 3 checkers: 1,000 bytes, not 300,500,968")


def run_benchmark(monkeypatch, capsys, folder, script, *args) -> tuple[int, str]:
    """A benchmark script run as `python benchmarks/SCRIPT ARGS` in `folder`, in this
    process (its imports are this process's already): its exit status and stderr."""
    path = ROOT / "benchmarks" / script
    monkeypatch.chdir(folder)
    monkeypatch.setattr(sys, "argv", [str(path), *args])
    monkeypatch.setattr(sys, "path", list(sys.path))
    capsys.readouterr()
    with pytest.raises(SystemExit) as done:
        runpy.run_path(str(path), run_name="__main__")
    return done.value.code, capsys.readouterr().err


def test_the_regret_breakdown_splits_every_decision_once(hyper2, tmp_path, monkeypatch,
                                                         capsys):
    """bench_regret_breakdown: checker plays and cube decisions add up to the regret's
    figures, and each split of the checker plays (contact, cube value, size of the
    loss) adds up to the checker plays."""
    import json
    code, _ = run_benchmark(monkeypatch, capsys, tmp_path, "bench_regret_breakdown.py",
                            "--table", str(hyper2.path), "--player", "heuristic",
                            "--games", "40")
    assert code in (0, None)
    result = json.loads((ROOT / "benchmarks" / "results" /
                         "regret_breakdown_backgammon_hyper_2.json").read_text())
    rows = {r["decisions"]: r for r in result["rows"]}
    summary = result["summary"]
    assert rows["checker plays"]["count"] == summary["checker_decisions"] > 0
    assert rows["cube decisions"]["count"] == summary["cube_decisions"] > 0
    checker = rows["checker plays"]
    assert summary["checker_loss_per_game_points"] > 0
    assert checker["points a game"] == pytest.approx(summary["checker_loss_per_game_points"],
                                                     abs=1e-4)
    for prefix in ("checker, in contact|checker, no contact", "checker, cube at",
                   "checker, loss"):
        split = [r for name, r in rows.items() if any(name.startswith(p)
                                                      for p in prefix.split("|"))]
        assert len(split) >= 2
        assert sum(r["points a game"] for r in split) == pytest.approx(
            checker["points a game"], abs=1e-3)
        if prefix != "checker, loss":   # the sizes of loss leave out the decisions lost nothing
            assert sum(r["count"] for r in split) == checker["count"]
