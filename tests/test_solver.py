"""The layered solver against the float64 reference, closed forms and its own certificates."""
import json
from fractions import Fraction

import numpy as np
import pytest

from tabula.games import get_game
from tabula.games.game import layer_id
from tabula.infra.batch import unrank_many
from tabula.solver import layered
from tabula.solver.layered import solve
from tabula.solver.reference import reference_solve
from tabula.solver.table import Table, TableError
from tests.conftest import SMALL
from tabula.solver.verify import verify_table
from tests.reference import ur_rules

@pytest.mark.slow
@pytest.mark.parametrize("name,pieces,max_total", SMALL)
def test_fast_solver_equals_reference(tables, name, pieces, max_total):
    table = tables[(name, pieces)]
    reference = reference_solve(table.game, max_total=max_total)
    assert sorted(reference) == sorted(table.layers)
    for layer, exact in reference.items():
        assert np.abs(table.layer(*layer).astype(np.float64) - exact).max() <= 1e-7, layer


def test_every_layer_is_certified(tables):
    for table in tables.values():
        for layer in table.layers:
            stats = table.layer_attrs[layer]
            assert stats["residual"] <= 1e-6 and stats["last_change"] <= 1e-9
        report = verify_table(table, sample=2000)
        assert report["ok"] and report["sha256_ok"], report


def exact_closed_system(state):
    """Exact value of an Ur position whose reachable positions have at most one legal
    move per throw, by Gaussian elimination over the rationals (reference rules)."""
    probs = [Fraction(c, 16) for c in (1, 4, 6, 4, 1)]
    index, order, rows = {}, [state], []
    while len(rows) < len(order):
        s = order[len(rows)]
        index.setdefault(s, len(rows))
        row = {}
        constant = Fraction(0)
        for throw, p in enumerate(probs):
            moves = ur_rules.legal_moves(s, throw)
            assert len(moves) <= 1
            if not moves:
                nxt, sign = (s[2], s[3], s[0], s[1]), -1  # forfeit: 1 - V(mirror)
            else:
                nxt, again, over = moves[0]
                if over:
                    constant += p
                    continue
                sign = 1 if again else -1
            if sign < 0:
                constant += p
            if nxt not in index:
                index[nxt] = len(order)
                order.append(nxt)
            row[index[nxt]] = row.get(index[nxt], 0) + sign * p
        rows.append((row, constant))
    n = len(order)
    matrix = [[Fraction(int(i == j)) - rows[i][0].get(j, 0) for j in range(n)] + [rows[i][1]]
              for i in range(n)]
    for col in range(n):
        pivot = next(r for r in range(col, n) if matrix[r][col] != 0)
        matrix[col], matrix[pivot] = matrix[pivot], matrix[col]
        for r in range(n):
            if r != col and matrix[r][col] != 0:
                f = matrix[r][col] / matrix[col][col]
                matrix[r] = [a - f * b for a, b in zip(matrix[r], matrix[col])]
    return matrix[0][n] / matrix[0][0]


def ur_position(game, me, opp):
    return game.position_from_json({"me": me, "me_waiting": 0, "opp": opp, "opp_waiting": 0})


def test_ur_closed_forms(tables):
    table = tables[("ur", 1)]
    both_on_14 = table.value(ur_position(table.game, [14], [14]))
    assert exact_closed_system((frozenset({14}), 0, frozenset({14}), 0)) == Fraction(4, 7)
    assert abs(both_on_14 - 4 / 7) < 1e-7
    exact = exact_closed_system((frozenset({13}), 0, frozenset({14}), 0))
    assert exact.denominator > 1 and 0 < exact < 1
    assert abs(table.value(ur_position(table.game, [13], [14])) - float(exact)) < 1e-7


def test_senet_closed_forms(tables):
    table = tables[("senet", 1)]
    game = table.game

    def value(me, opp):
        return table.value(game.position_from_json({"me": [me], "opp": [opp]}))

    assert abs(value(30, 29) - 8 / 17) < 1e-7
    assert abs(value(29, 1) - 0.992) <= 0.0005
    for opp in [s for s in range(1, 31) if s not in (27, 29)]:  # 29 is then taken
        mine = {me: value(me, opp) for me in range(1, 31) if me not in (27, opp)}
        assert max(mine, key=mine.get) == 29, opp


def test_table_refuses_other_game_or_rules(tables):
    path = tables[("ur", 2)].path
    with pytest.raises(TableError, match=r"table of ur\(rules=finkel,pieces=2\), not of senet"):
        Table(path, game="senet")
    with pytest.raises(TableError, match="not of tiny rules"):
        Table(path, game="ur", rules="tiny")
    with pytest.raises(TableError, match=r"pieces=2\), not of pieces=3"):
        Table(path, game="ur", pieces=3)
    with pytest.raises(TableError, match="no table file"):
        Table(path.with_name("missing.h5"))


def test_lookups_match_layers(tables):
    table = tables[("ur", 3)]
    rng = np.random.default_rng(0)
    for a, b in table.layers:
        ranks = rng.integers(0, table.game.layer_size(a, b), size=50)
        codes = unrank_many(table.game.unrank, np.full(50, layer_id(a, b)), ranks)
        assert np.array_equal(table.values(codes), table.layer(a, b)[ranks])
    in_memory = Table(table.path, in_memory=True)
    assert in_memory.value(table.game.start) == table.value(table.game.start)


def test_interrupted_solve_resumes(tmp_path, monkeypatch):
    game = get_game("ur", 2)
    out = tmp_path / "ur2.h5"
    real = layered.solve_unit
    calls = []

    def failing_after_two(*args, **kwargs):
        if len(calls) == 2:
            raise KeyboardInterrupt
        calls.append(args[1])
        return real(*args, **kwargs)

    monkeypatch.setattr(layered, "solve_unit", failing_after_two)
    with pytest.raises(KeyboardInterrupt):
        solve(game, out, quiet=True)
    assert not out.exists()
    assert (tmp_path / "ur2.h5.partial").is_dir()
    # a solve killed mid-unit (no Python clean-up runs) leaves its tabled moves behind
    stale = tmp_path / "ur2.h5.partial" / f"{layered.SPILL_PREFIX}killed"
    stale.mkdir()
    (stale / "moves.int32").write_bytes(b"\0" * 4096)
    seen = []

    def resumed(*a, **k):
        seen.append(stale.exists())   # gone before the first unit is solved again
        calls.append(a[1])
        return real(*a, **k)
    monkeypatch.setattr(layered, "solve_unit", resumed)
    solve(game, out, quiet=True)
    assert seen and not any(seen)
    assert calls == [(1, 1), (2, 1), (2, 2)]  # the resumed run solved only the last unit
    assert not (tmp_path / "ur2.h5.partial").exists()
    fresh = tmp_path / "fresh.h5"
    solve(game, fresh, quiet=True)
    for layer in Table(out).layers:
        assert np.abs(Table(out).layer(*layer) - Table(fresh).layer(*layer)).max() < 1e-7


def test_resume_with_other_settings_is_refused(tmp_path):
    out = tmp_path / "t.h5"
    (tmp_path / "t.h5.partial").mkdir()
    (tmp_path / "t.h5.partial" / "meta.json").write_text('{"game": "senet"}')
    with pytest.raises(layered.SolveError, match="other settings"):
        solve(get_game("ur", 1), out, quiet=True)


@pytest.mark.parametrize("name,pieces,max_total,budget", [("ur", 2, None, 0),
                                                           ("senet", 2, 3, 0),
                                                           ("ur", 2, None, 200_000),
                                                           ("ur", 3, None, 0)])
def test_moves_spilled_to_a_file_give_the_same_table(tables, tmp_path, monkeypatch, name,
                                                     pieces, max_total, budget):
    """Units whose moves do not fit in memory read them back from a file in blocks;
    with a budget between, a unit starts in memory and moves to the file midway. Ur 3's
    unit (3,3) has waves of two chunks, which blocks of one chunk cut in two: the moves
    of the second block read the first block's slots of the wave as they were before it,
    the same bytes as in memory."""
    monkeypatch.setattr(layered, "SPILL_BLOCK_BYTES", 4096)  # several blocks even here
    monkeypatch.setattr(layered, "SCRATCH_BYTES", 1)  # moves generated a chunk at a time
    spilled = []
    real_close = layered.MoveTable.close

    def close(self):
        spilled.append((self.spill is not None and self.spill.exists(), len(self.blocks),
                        self.size))
        real_close(self)

    heads = []  # entries already in memory when a unit moved to the file
    real_write = layered.MoveTable._write

    def write(self, path, first, groups):
        heads.append(len(first[0]))
        real_write(self, path, first, groups)

    monkeypatch.setattr(layered.MoveTable, "close", close)
    monkeypatch.setattr(layered.MoveTable, "_write", write)
    out = tmp_path / "spilled.h5"
    solve(get_game(name, pieces), out, max_total=max_total, quiet=True, table_budget=budget)
    assert max(n for _, n, _ in spilled) > 1
    for on_disk, _, size in spilled:
        assert on_disk == (4 * size > budget)
    assert (max(heads) > 0) == (budget > 0)
    assert not any((tmp_path / "spilled.h5.partial").glob("*/moves.int32"))
    for layer in tables[(name, pieces)].layers:
        assert np.array_equal(Table(out).layer(*layer), tables[(name, pieces)].layer(*layer))


def test_solve_command_summary_and_refusals(tmp_path, capsys):
    from tabula.cli import main
    out = tmp_path / "ur1.h5"
    assert main(["solve", "ur", "--pieces", "1", "--out", str(out), "--quiet", "--json"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["positions"] == 217 and summary["max_residual"] <= 1e-6
    assert abs(summary["start_value"] - Table(out).value(get_game("ur", 1).start)) < 1e-7
    assert main(["solve", "ur", "--pieces", "1", "--out", str(out), "--quiet"]) == 2
    assert "exists" in capsys.readouterr().err
    assert main(["value", "ur", "--table", str(out), "--position", "start", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["value"] == pytest.approx(summary["start_value"],
                                                                          abs=1e-7)
    assert main(["table", "verify", str(out), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["ok"]
    assert main(["table", "info", str(out), "--json"]) == 0
    info = json.loads(capsys.readouterr().out)
    assert info["game"] == "ur" and info["positions"] == 217 and info["sha256"]
    position = '{"me": [14], "me_waiting": 0, "opp": [14], "opp_waiting": 0}'
    assert main(["moves", "ur", "--table", str(out), "--position", position, "--throw", "2",
                 "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == {"moves": []}
    assert main(["moves", "ur", "--table", str(out), "--position", position, "--throw", "1",
                 "--json"]) == 0
    (move,) = json.loads(capsys.readouterr().out)["moves"]
    assert move["over"] and move["value"] == 1.0
    two = '{"me": [12], "me_waiting": 0, "opp": [14], "opp_waiting": 0}'
    assert main(["moves", "ur", "--table", str(out), "--position", two, "--throw", "2",
                 "--json"]) == 0
    (move,) = json.loads(capsys.readouterr().out)["moves"]  # 12 -> 14: a rosette, again
    expected = Table(out).value(get_game("ur", 1).position_from_json(move["position"]))
    assert move["again"] and move["value"] == pytest.approx(expected)


def test_huge_page_arrays_are_ordinary_writable_arrays():
    from tabula.solver import hugepages
    for shape in [(3,), (2**20, 3)]:  # below and above the 2 MiB where huge pages start
        array = hugepages.full(shape, 0.5, np.float64)
        assert array.shape == shape and array.dtype == np.float64 and (array == 0.5).all()
        assert array.flags.c_contiguous and array.flags.writeable
        array.flat[-1] = 2.0
        assert array.sum() == 0.5 * (array.size - 1) + 2.0


def test_the_same_bytes_whatever_the_thread_count(tmp_path):
    """The sweeps go wave by wave (solver/kernels.py): solves with 1 and 2 threads
    write the same values, byte for byte. (Before the waves, two 2-thread solves of
    Ur 3 gave tables with different SHA-256s.)"""
    import numba
    if numba.config.NUMBA_NUM_THREADS < 2:
        pytest.skip("needs two threads")
    shas = set()
    for run, threads in enumerate((1, 2, 2)):
        out = tmp_path / f"ur3-{run}.h5"
        solve(get_game("ur", 3), out, threads=threads, quiet=True)
        shas.add(Table(out).attrs["sha256"])
    assert len(shas) == 1


def test_a_disk_without_room_for_table_and_checkpoint_drops_each_layer_once_written(
        tables, tmp_path, monkeypatch):
    deleted = []
    real_discard = layered.Checkpoint.discard

    def discard(self, layer):
        assert (tmp_path / "ur2.h5.tmp").exists()   # written into the table first
        deleted.append(layer)
        real_discard(self, layer)

    monkeypatch.setattr(layered, "_room_for_table", lambda *args: False)
    monkeypatch.setattr(layered.Checkpoint, "discard", discard)
    solve(get_game("ur", 2), tmp_path / "ur2.h5", quiet=True)
    made, reference = Table(tmp_path / "ur2.h5"), tables[("ur", 2)]
    assert deleted == list(made.layers)
    assert made.attrs["sha256"] == reference.attrs["sha256"]
