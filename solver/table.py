"""Solved tables in HDF5: one contiguous float32 dataset per layer, memory-mappable.

File layout:
  attrs   the common fields (infra/manifest.py), layers (JSON), tolerance,
          sha256 (of the float32 values, layers in file order), solve_seconds,
          max_residual, start_value
  layers/A_B   float32[size of layer (A, B)], attrs: sweeps, last_change,
               residual, seconds
Datasets are aligned to 4 KiB so the whole file can be mapped as float32.
"""
import hashlib
import json
import zlib
from pathlib import Path

import h5py
import numpy as np
from tabula.games import PositionError, game_of
from tabula.games.game import N_LAYER_IDS, layer_id, layer_pair
from tabula.games.loop import start_positions
from tabula.infra.h5files import open_checked, plain
from tabula.infra.manifest import stamp
from tabula.infra.rng import cumulative
from tabula.infra.schemas import LayerAttributes, TableAttributes, check

from .bellman import best_moves, decision_losses, decision_worths, table_move_worths
from .lookup import lookup_many
from .selfplay import best_by_chance, play_games, single_loss
from .verify import residual_bound, spot_residual, verify_table

FORMAT = "tabula-table"
FORMAT_VERSION = 1
ALIGN = 4096


class TableError(PositionError):
    """A table file that is missing, unreadable, incomplete or made for another game."""


def dataset_name(a: int, b: int) -> str:
    return f"layers/{a}_{b}"


def values_sha256(arrays) -> str:
    digest = hashlib.sha256()
    for values in arrays:
        digest.update(np.ascontiguousarray(values, dtype=np.float32).tobytes())
    return digest.hexdigest()


def layer_crc32(values) -> int:
    """The CRC-32 of a layer's float32 values: checked whenever a table is opened (about
    2.5 GB/s here, so a 550 MB table is checked in about 0.2 s)."""
    return zlib.crc32(np.ascontiguousarray(values, dtype=np.float32))


def write_table(path, game, layers, read_layer, attrs, layer_attrs, done_with=None):
    """Write layers (in order) to `path`; read_layer(a, b) gives each float32 array, and
    done_with(a, b), where given, is called once a layer is written and hashed."""
    meta = stamp(FORMAT, FORMAT_VERSION, game)
    with h5py.File(path, "w", alignment_threshold=1, alignment_interval=ALIGN) as f:
        f.attrs.update({**meta, "machine": json.dumps(meta["machine"]),
                        "layers": json.dumps([list(p) for p in layers])})

        def written():
            for a, b in layers:
                values = read_layer(a, b)
                ds = f.create_dataset(dataset_name(a, b), data=values, dtype=np.float32)
                ds.attrs.update({**layer_attrs[(a, b)], "crc32": layer_crc32(values)})
                yield values
                if done_with is not None:
                    done_with(a, b)

        f.attrs["sha256"] = values_sha256(written())
        f.attrs.update(attrs)


class Table:
    """A solved table, opened for lookups (memory-mapped, or read into memory): the
    layered kind of solution (solver/solution.py lists what every kind answers)."""

    value_names = ("win",)   # the winning chance of the player about to throw

    def __init__(self, path, game: str | None = None, pieces: int | None = None,
                 in_memory: bool = False, rules: str | None = None):
        self.path = Path(path)
        with open_checked(self.path, FORMAT, TableError, "table file",
                          "a tabula table") as (f, self.attrs):
            self.game, self.layers = self._layout(f)
            other = self.game.differs_from(game, pieces, rules)
            if other:
                raise TableError(f"{self.path} is a table of {self.game.describe()}, {other}")
            self.layer_attrs = {p: check(LayerAttributes, {k: plain(v) for k, v in f[
                dataset_name(*p)].attrs.items()}, f"{self.path}: layer {p} has broken "
                "attributes", TableError).model_dump() for p in self.layers}
            self.offsets = np.full(N_LAYER_IDS, -1, dtype=np.int64)
            if in_memory:
                self.flat = np.empty(sum(self.game.layer_size(*p) for p in self.layers),
                                     dtype=np.float32)
                start = 0
                for p in self.layers:
                    ds = f[dataset_name(*p)]
                    ds.read_direct(self.flat[start:start + len(ds)])
                    self.offsets[layer_id(*p)] = start
                    start += len(ds)
            else:
                for p in self.layers:
                    offset = f[dataset_name(*p)].id.get_offset()
                    if offset is None or offset % 4:
                        raise TableError(f"{self.path}: layer {p} is not mappable")
                    self.offsets[layer_id(*p)] = offset // 4
        if not in_memory:
            self.flat = np.memmap(self.path, dtype=np.float32, mode="r",
                                  shape=(self.path.stat().st_size // 4,))
        self._check_values()
        worst = spot_residual(self)
        if not worst <= residual_bound(self):
            raise TableError(f"{self.path}: its values do not satisfy the rules of "
                             f"{self.game.describe()} (a Bellman residual of {worst:.3g} on a "
                             "sample of positions): it is not a solution of this game, solve "
                             "again (tabula table verify checks every layer)")
        self._check_start_value()

    def _check_start_value(self):
        """The start value the header states (table info prints it) is the start
        position's value in the table, to float32's rounding."""
        said = self.header.start_value
        if said is None or layer_pair(int(self.game.layer_of(self.game.start))) not in \
                self.layers:
            return
        held = float(self.values([self.game.start])[0])
        if not abs(float(said) - held) <= 1e-6:
            raise TableError(f"{self.path}: its header says the start is worth {float(said):.7f}, "
                             f"its values {held:.7f}: the file is damaged, solve again")

    def _layout(self, f):
        """The game and the layers, after checking the attributes and every layer's
        dataset against them: a file that says something else than it holds is refused."""
        where = f"{self.path} has broken attributes"
        said = self.header = check(TableAttributes, dict(self.attrs), where, TableError)
        game = game_of(said, where, TableError)
        layers, max_total = said.layers, said.max_total
        expected = game.solved_layers(None if max_total < 0 else max_total)
        if sorted(layers) != sorted(expected):
            raise TableError(f"{self.path} holds layers {sorted(layers)} but {game.name} with "
                             f"pieces={game.pieces} has {sorted(expected)}")
        for p in layers:
            ds = f.get(dataset_name(*p))
            if ds is None:
                raise TableError(f"{self.path} lacks layer {p}")
            if ds.dtype != np.float32 or ds.shape != (game.layer_size(*p),):
                raise TableError(f"{self.path}: layer {p} holds {ds.dtype} {ds.shape}, not "
                                 f"float32 ({game.layer_size(*p)},)")
        return game, layers

    def _check_values(self):
        """Each layer against its recorded CRC-32 (tables written before those were
        recorded: all values against the file's SHA-256), and every value a winning
        chance: a file written with other values and a checksum to match is refused."""
        recorded = all("crc32" in self.layer_attrs[p] for p in self.layers)
        for p in self.layers:
            values = self.layer(*p)
            if recorded and layer_crc32(values) != self.layer_attrs[p]["crc32"]:
                raise TableError(f"{self.path}: layer {p} is not what was written "
                                 "(checksum differs): the file is damaged, solve again")
            if len(values) and not (values.min() >= 0.0 and values.max() <= 1.0):
                raise TableError(f"{self.path}: layer {p} holds values that are not winning "
                                 "chances (outside 0..1, or not numbers): solve again")
        if not recorded and values_sha256(self.layer(*p) for p in self.layers) != \
                self.attrs["sha256"]:
            raise TableError(f"{self.path} is not what was written (SHA-256 differs): the "
                             "file is damaged, solve again")

    def layer(self, a: int, b: int) -> np.ndarray:
        start = self.offsets[layer_id(a, b)]
        if start < 0:
            raise TableError(f"{self.path} holds no layer ({a}, {b})")
        return self.flat[start:start + self.game.layer_size(a, b)]

    def values(self, codes) -> np.ndarray:
        codes = np.asarray(codes, dtype=np.int64)
        out = lookup_many(self.game.layer_of, self.game.rank, self.flat, self.offsets, codes)
        if np.isnan(out).any():
            code = int(codes[np.isnan(out)][0])
            a, b = layer_pair(int(self.game.layer_of(code)))
            raise TableError(f"{self.path} holds no layer ({a}, {b}) for position "
                             f"{json.dumps(self.game.to_json(code))}")
        return out

    def value(self, code: int) -> float:
        return float(self.values([code])[0])

    def answer(self, code: int) -> dict:
        """All the table says of a position, as `tabula value --json` prints it."""
        return self.answers([code])[0]

    def answers(self, codes) -> list[dict]:
        return [{"value": float(v)} for v in self.values(codes)]

    def answer_text(self, code: int) -> str:
        v = self.value(code)
        return (f"{self.game.name} position {json.dumps(self.game.to_json(code))}: the "
                f"player to throw wins with probability {v:.7f} ({100 * v:.4f}%)")

    def move_answers(self, code: int, moves: list) -> list[dict]:
        """Each legal move's value: the mover's winning chance after it (game.legal_moves
        form; `code` is the position moved from)."""
        if not moves:
            return []
        worths = table_move_worths(self, [m["position"] for m in moves],
                                   [m["info"] for m in moves])
        return [{"value": float(w)} for w in worths]

    def decision_losses(self, counts, next_codes, infos, chosen) -> np.ndarray:
        """The judge regret uses: each decision's loss in winning chance, the best
        move's worth less the chosen one's (solver/bellman.py decision_losses)."""
        return decision_losses(self.game.layer_of, self.game.rank, self.flat, self.offsets,
                               counts, next_codes, infos, chosen)

    # -- what compiled kernels need: the perfect policy, decisions' worths, self-play
    def best_moves(self, counts, next_codes, infos) -> np.ndarray:
        """The perfect policy: the best move of each decision by the table (the first of
        equals), decisions in rows of next_codes and infos with counts[i] moves."""
        return best_moves(self.game.layer_of, self.game.rank, self.flat, self.offsets,
                          counts, next_codes, infos)

    def decision_worths(self, counts, next_codes, infos) -> np.ndarray:
        """float32 (n, M): each legal move's worth to the mover, 0 in unused slots."""
        return decision_worths(self.game.layer_of, self.game.rank, self.flat, self.offsets,
                               counts, next_codes, infos)

    def self_play(self, seed: int, first_game: int, n: int, explore: float,
                  alternatives: bool, capacity: int):
        """Games first_game .. first_game + n - 1 of the perfect player against itself
        with exploration, from the game's starts (solver/selfplay.py): (counts, out,
        kinds), game i's positions in out[i * capacity:] (count -1: more than
        capacity)."""
        g = self.game
        out = np.empty(n * capacity, dtype=np.int64)
        kinds = np.zeros(n * capacity, dtype=np.uint8)
        starts = start_positions(g, seed, np.arange(first_game, first_game + n))
        counts = play_games(g.moves, g.mirror, g.layer_of, g.rank, single_loss, g.pieces,
                            g.throws, cumulative(g.probs), g.max_moves, best_by_chance,
                            self.flat, self.offsets, starts, seed, first_game, explore,
                            alternatives, capacity, out, kinds)
        return counts, out, kinds

    def values_sha256(self) -> str:
        """The SHA-256 of the values as they are now (the file's says what they were)."""
        return values_sha256(self.layer(*p) for p in self.layers)

    def verify(self, sample: int = 100_000, seed: int | None = None) -> dict:
        """The checksum, sane values and the Bellman residual at every start and on a
        sample of every layer, drawn afresh unless `seed` is given (solver/verify.py)."""
        return verify_table(self, sample=sample, seed=seed)

    @staticmethod
    def verify_text(report: dict) -> str:
        return (f"{report['table']}: sha256 {'ok' if report['sha256_ok'] else 'MISMATCH'}, "
                f"worst residual {report['max_residual']:.2e} at "
                f"{report['starts']['checked']:,} start position(s) and on samples (seed "
                f"{report['seed']}; bound {report['residual_bound']:.0e}): "
                f"{'ok' if report['ok'] else 'FAILED'}")

    def info(self) -> tuple[dict, str]:
        """What the file holds (tabula table info): as JSON, and in lines for people."""
        attrs = dict(self.attrs) | self.header.model_dump()   # read by the schema
        positions = sum(self.game.layer_size(*p) for p in self.layers)
        answer = {"file": str(self.path), **attrs, "positions": positions,
                  "layer_stats": {f"{a}_{b}": self.layer_attrs[(a, b)]
                                  for a, b in self.layers}}
        lines = [f"{self.path}: {attrs['game']} ({attrs['rules']}), pieces={attrs['pieces']}, "
                 f"{positions:,} positions in {len(self.layers)} layers",
                 f"  solved {attrs.get('created')} by tabula {attrs.get('code_version')} on "
                 f"{attrs['machine'].get('cpu')} ({attrs['machine'].get('cores')} cores) in "
                 f"{attrs.get('solve_seconds', 0):.1f} s",
                 f"  tolerance {attrs['tolerance']:.0e}, worst certified residual "
                 f"{attrs['max_residual']:.2e}",
                 f"  sha256 {attrs['sha256']}"]
        if attrs["start_value"] is not None:
            lines.append(f"  start value (float64) {attrs['start_value']:.12f}")
        lines.append("  layer    positions     sweeps  residual   "
                     "(sweeps: full + cheap ones over the recorded best moves)")
        for (a, b) in self.layers:
            s = self.layer_attrs[(a, b)]
            lines.append(f"  ({a},{b})  {s['positions']:>12,}  "
                         f"{s['sweeps']:>4}+{s['policy_sweeps']:<4}  {s['residual']:.1e}")
        return answer, "\n".join(lines)

