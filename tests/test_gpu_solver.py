"""The GPU backend of the solver (solver/gpu.py) without a GPU: its kernel logic
compiled for the CPU gives the CPU solver's tables on every position of Ur 1-3 and
Senet's layers with at most 3 pieces; its CUDA kernels, run by numba's CUDA
simulator, give Ur 1's; and they compile for the H200 (PTX assembled by ptxas for
sm_90), where the simulator cannot tell: no Python builtin numba's CUDA target lacks,
registers and constant memory within the limits."""
import os
import shutil
import subprocess
import sys

import numpy as np
import pytest

from tabula.cli import main
from tabula.solver import gpu
from tabula.solver.layered import solve
from tabula.solver.table import Table
from numba import types

from tests.conftest import SMALL

pytestmark = pytest.mark.gpu   # numba's CUDA simulator here; the GPU itself when there is one

ULP = 2.0 ** -24   # float32's step below 1: both solvers stop within 1e-9 of the fixed
                   # point by different paths, so a stored value may round the other way


def assert_same_table(made: Table, reference: Table):
    assert made.attrs["max_residual"] < 1e-6
    for layer in made.game.solved_layers(reference.attrs["max_total"]
                                         if reference.attrs["max_total"] >= 0 else None):
        gap = np.abs(made.layer(*layer).astype(np.float64) - reference.layer(*layer)).max()
        assert gap <= ULP, (layer, gap)
    if "start_value" in reference.attrs:
        assert abs(made.attrs["start_value"] - reference.attrs["start_value"]) < 1e-9


# (Ur 3 took 44 s in numba's Python mode and checks nothing Ur 2 and Senet 2 do not)
@pytest.mark.parametrize("name,pieces,max_total",
                         [s for s in SMALL if s[:2] not in (("senet", 1), ("ur", 3))])
def test_the_kernel_logic_gives_the_cpu_solvers_table(tables, tmp_path, name, pieces,
                                                      max_total):
    reference = tables[(name, pieces)]
    out = tmp_path / "t.h5"
    solve(reference.game, out, max_total=max_total, quiet=True,
          unit_solver=gpu.unit_solver("cpu"))
    assert_same_table(Table(out), reference)


def test_the_cuda_kernels_give_the_cpu_solvers_table_in_the_simulator(tables, tmp_path):
    out = tmp_path / "ur1.h5"
    script = ("from tabula.games import get_game; from tabula.solver import gpu; "
              "from tabula.solver.layered import solve; "
              f"solve(get_game('ur', 1), {str(out)!r}, quiet=True, "
              "unit_solver=gpu.unit_solver('cuda'))")
    env = {**os.environ, "NUMBA_ENABLE_CUDASIM": "1"}
    subprocess.run([sys.executable, "-c", script], env=env, check=True, timeout=600)
    assert_same_table(Table(out), tables[("ur", 1)])


def test_asking_for_a_gpu_where_there_is_none_is_one_line(tmp_path, capsys):
    if gpu.cuda.is_available():
        pytest.skip("this machine has a GPU")
    assert main(["solve", "ur", "--pieces", "1", "--out", str(tmp_path / "t.h5"),
                 "--device", "cuda"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "no CUDA GPU" in err[0]


def _nvvm_missing() -> bool:
    try:
        gpu.cuda.cudadrv.nvvm.NVVM()
    except Exception:
        return True
    return shutil.which("ptxas") is None


class _H200:
    compute_capability = (9, 0)


@pytest.mark.skipif(_nvvm_missing(), reason="needs the CUDA toolkit's NVVM and ptxas")
@pytest.mark.parametrize("name,pieces", [("ur", 7), ("senet", 5)])
def test_the_cuda_kernels_compile_for_the_h200(monkeypatch, tmp_path, name, pieces):
    from tabula.games import get_game
    # device functions are compiled for the current device's architecture: there is none
    monkeypatch.setattr(gpu.cuda.dispatcher, "get_current_device", lambda: _H200())
    keys, wave, write_back, to_float32 = gpu.cuda_kernels(get_game(name, pieces))
    i64, f64 = types.int64, types.float64

    def array(t):
        return types.Array(t, 1, "C")
    signatures = {
        keys: (i64, i64, i64, array(types.int32)),
        wave: (array(f64), array(types.float32), array(i64), i64, i64, i64, array(i64),
               array(f64), array(i64), i64, i64, types.boolean, array(f64), array(i64),
               array(f64)),
        write_back: (array(f64), array(f64), array(i64), i64),
        to_float32: (array(f64),)}
    for number, (kernel, signature) in enumerate(signatures.items()):
        ptx, _ = gpu.cuda.compile_ptx(kernel.py_func, signature, cc=(9, 0))
        path = tmp_path / f"{number}.ptx"
        path.write_text(ptx)
        assembled = subprocess.run(["ptxas", "-arch=sm_90", "-v", str(path), "-o",
                                    str(path.with_suffix(".cubin"))],
                                   capture_output=True, text=True)
        assert assembled.returncode == 0, assembled.stderr
