"""Progress output (infra/progress.py) as a person sees it: redrawn in place on a
terminal (a pseudo-terminal here) and cleared at the end; plain lines on a pipe;
one ETA, from the work done."""
import pytest
import fcntl
import os
import pty
import struct
import subprocess
import sys
import termios

from tabula.infra.progress import Progress


def run_on_terminal(args):
    """stderr of `python -m tabula ARGS` on a pseudo-terminal, as the terminal got it."""
    main, child = pty.openpty()
    fcntl.ioctl(child, termios.TIOCSWINSZ, struct.pack("HHHH", 30, 100, 0, 0))
    done = subprocess.Popen([sys.executable, "-m", "tabula", *args], stdout=subprocess.PIPE,
                            stderr=child, env={**os.environ, "COLUMNS": "100"})
    os.close(child)
    chunks = []
    while True:
        try:
            chunk = os.read(main, 4096)
        except OSError:   # the child closed its end
            break
        if not chunk:
            break
        chunks.append(chunk)
    done.wait(timeout=120)
    os.close(main)
    return done.returncode, b"".join(chunks).decode(errors="replace")


def test_a_terminal_gets_one_bar_redrawn_and_cleared(tables):
    code, shown = run_on_terminal(["eval", "regret", "ur", "--pieces", "3", "--table",
                                   str(tables[("ur", 3)].path), "--player", "expectimax:1",
                                   "--games", "3000"])
    assert code == 0
    assert "\r" in shown and "turns" in shown        # tqdm redraws the line in place
    pieces = shown.replace("\r", "\n").rstrip("\n").split("\n")
    assert pieces[-1].startswith("regret expectimax:1: done in")   # after the bar ...
    assert pieces[-2].strip() == ""                                   # ... is cleared


@pytest.mark.slow
def test_a_pipe_gets_plain_lines_with_one_eta(tables):
    path = str(tables[("ur", 2)].path) + ".again.h5"
    done = subprocess.run([sys.executable, "-m", "tabula", "solve", "ur", "--pieces", "2",
                           "--out", path], capture_output=True, text=True)
    assert done.returncode == 0 and "\r" not in done.stderr
    lines = done.stderr.strip().splitlines()
    assert all(line.count("ETA") <= 1 for line in lines)
    assert lines[-1].startswith("solve: ") and " in " in lines[-1]
    assert any("full +" in line and "cheap sweeps" in line for line in lines)


def test_the_eta_comes_from_the_work_done():
    import io
    progress = Progress("work", 100, "items", stream=io.StringIO())
    progress.started -= 10.0             # 10 s ago
    assert progress.line(25) .endswith("25/100 (25%) items, 2 items/s, ETA 30 s")
    progress.total = None
    assert "ETA" not in progress.line(25)


def test_a_pipe_gets_one_line_at_the_total_not_one_per_update_after_it():
    """An estimate that the work overtakes (done >= total) printed a line at every
    update from then on: a self-play log had one a step. Now one line at the total,
    then one every `every` seconds as before."""
    import io
    stream = io.StringIO()
    progress = Progress("work", 100, "items", stream=stream, every=3600)
    for done in range(90, 200):
        progress.update(done, total=max(100, done))
    assert len(stream.getvalue().splitlines()) == 1


def test_the_turns_estimate_of_games_in_lockstep_is_not_the_turns_played():
    """Games played in lockstep all outlast the first to finish; an estimate from the
    finished games' mean alone said 100% done (ETA 0 s) while most games ran on."""
    import numpy as np
    from tabula.eval.engine import _work
    turns = np.array([10, 12, 14, 30, 30, 30, 30, 30])
    finished = np.array([True, True, True, False, False, False, False, False])
    done, total = _work(turns, finished)
    assert done == turns.sum() and total > done + 5 * 1.5   # five games still to go
    assert _work(turns, np.ones(8, dtype=bool)) == (done, float(done))
