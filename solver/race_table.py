"""Tables of race games whose sides never meet (solver/two_sided.py), in HDF5.

File layout:
  attrs   the common fields (infra/manifest.py), values (JSON list of the names below),
          sha256 (of the values' float32 bytes in that order, then rolls), solve_seconds
  values/NAME   float32 [mover's side index, opponent's side index] (games.game.Race
                side_index), NAME in win, win_gammon, lose_gammon (gammons only with
                15 checkers), centered, owned, unavailable; attrs: crc32
  rolls         float64 [side index, r]: the chance that the side needs exactly r
                throws to bear off (solver/one_sided.py); attrs: crc32
A table of --one-sided holds `rolls` only.
"""
import hashlib
import json
import zlib
from pathlib import Path

import h5py
import numpy as np
from numba import njit, prange

from tabula.games import PositionError, get_game
from tabula.games.cube import FLIP
from tabula.games.game import move_worths
from tabula.infra.errors import TabulaError
from tabula.infra.h5files import open_checked
from tabula.infra.manifest import missing_fields, stamp
from tabula.infra.schemas import check
from tabula.infra.rng import cumulative

from .race_selfplay import play_race_games
from .two_sided import CUBEFUL, cube_equity, doubles, takes

PROBABILITIES = ("win", "win_gammon", "lose_gammon")   # a race position's cubeless chances
CHANCES = ("win", "win_gammon", "win_backgammon", "lose_gammon", "lose_backgammon")


def answer_of(values: dict) -> dict:
    """What a money table's values of one position (by name) say, as `tabula value
    --json` prints it: the cubeless chances and equity, the equity in each cube state,
    not doubling and doubling as well as one may, and the cube action. Backgammons and
    the Jacoby rule's equity appear where the table holds them (contact tables)."""
    chances = {name: values.get(name, 0.0) for name in CHANCES}
    kept = [name for name in CHANCES if name in PROBABILITIES or name in values]
    nd = {name: values[name] for name in (*CUBEFUL, "centered_jacoby") if name in values}
    if doubles(nd["centered"], nd["unavailable"]):
        cube = "double, take" if takes(nd["unavailable"]) else "double, pass"
    else:                          # not good enough, or too good (playing for a gammon)
        cube = "no double"
    cubeless = (2 * chances["win"] - 1 + chances["win_gammon"] + chances["win_backgammon"]
                - chances["lose_gammon"] - chances["lose_backgammon"])
    return {**{name: chances[name] for name in kept},
            "equity": {"cubeless": cubeless,
                       **{name: cube_equity(nd[name], nd["unavailable"])
                          for name in nd if name != "unavailable"},
                       "unavailable": nd["unavailable"]},
            "equity_no_double": nd, "cube": cube}


def equity_bound_of(names) -> float:
    """The most points a game whose values are `names` can be worth per unit of cube
    value: 3 with backgammons, 2 with gammons, else 1."""
    return 3.0 if "win_backgammon" in names else 2.0 if "win_gammon" in names else 1.0


def value_bounds(names) -> tuple[list, list]:
    """The least and the most each of the values `names` can be: 0 and 1 for a chance,
    -b and b for an equity (b = equity_bound_of)."""
    bound = equity_bound_of(names)
    return ([0.0 if n in CHANCES else -bound for n in names],
            [1.0 if n in CHANCES else bound for n in names])


def race_value_names(game) -> tuple:
    """What a race table holds of each position (solver/values.py): the cubeless chances
    (with gammons only where one can happen) and the three cubeful equities."""
    gammons = game.capabilities.has_gammons and game.pieces >= game.race.gammon_checkers
    return (*(PROBABILITIES if gammons else PROBABILITIES[:1]), *CUBEFUL)

FORMAT = "tabula-race-table"
FORMAT_VERSION = 1


class RaceTableError(PositionError):
    """A race table that is missing, unreadable, damaged or made for another game."""


def crc32(values) -> int:
    return zlib.crc32(np.ascontiguousarray(values))


def arrays_sha256(arrays) -> str:
    digest = hashlib.sha256()
    for array in arrays:
        digest.update(np.ascontiguousarray(array))   # its bytes, without a copy
    return digest.hexdigest()


def write_race_table(path, game, values: dict, rolls, attrs: dict):
    """Write `values` ({name: float32 square array}) and `rolls` to `path`."""
    meta = stamp(FORMAT, FORMAT_VERSION, game)
    with h5py.File(path, "w") as f:
        f.attrs.update({**meta, "machine": json.dumps(meta["machine"]),
                        "values": json.dumps(list(values)),
                        "sha256": arrays_sha256([*values.values(), rolls]), **attrs})
        for name, array in values.items():
            f.create_dataset(f"values/{name}", data=array).attrs["crc32"] = crc32(array)
        f.create_dataset("rolls", data=rolls).attrs["crc32"] = crc32(rolls)


@njit(parallel=True, cache=True)
def _side_pairs(side_index, side_bits, codes):
    mask = (1 << side_bits) - 1
    out = np.empty((2, len(codes)), dtype=np.int64)
    for n in prange(len(codes)):
        out[0, n] = side_index(codes[n] & mask)
        out[1, n] = side_index(codes[n] >> side_bits)
    return out


def read_header(path, attrs: dict, error, game=None, pieces=None, rules=None) -> tuple:
    """(the game, the value names) a money table's attributes name, checked against the
    game, pieces and rules asked for (None: any); `error` says what is wrong."""
    try:
        found = get_game(attrs["game"], int(attrs["pieces"]), str(attrs["rules"]))
        names = json.loads(attrs["values"])
        attrs["sha256"]
    except (KeyError, ValueError, TypeError, TabulaError) as err:
        raise error(f"{path} has broken attributes ({err})") from None
    other = found.differs_from(game, pieces, rules)
    if other:
        raise error(f"{path} is a table of {found.describe()}, {other}")
    return found, names


def read_values_file(path, file_format: str, error, what: str, schema, value_names,
                     game=None, pieces=None, rules=None) -> tuple:
    """(attributes, header, game, values) of a table file of `file_format` with one
    `values` dataset (contact and outcome tables), its attributes checked by `schema`,
    made for the game asked for (None: any) and holding `value_names`; `error` says what
    is wrong, `what` names the kind of file ("a tabula contact table")."""
    with open_checked(path, file_format, error, "table file", what) as (f, attrs):
        header = check(schema, dict(attrs), f"{path} has broken attributes", error)
        found, names = read_header(path, attrs, error, game, pieces, rules)
        values = read_dataset(f, path, "values", error)
    if names != list(value_names):
        raise error(f"{path} holds the values {', '.join(map(str, names))}, not "
                    f"{', '.join(value_names)}: solve again")
    return attrs, header, found, values


def read_dataset(f, path, name: str, error) -> np.ndarray:
    """The dataset `name` of an open table file, its CRC-32 checked."""
    ds = f.get(name)
    if ds is None:
        raise error(f"{path} lacks {name}")
    array = ds[()]
    if crc32(array) != ds.attrs.get("crc32"):
        raise error(f"{path}: {name} is not what was written (checksum differs): the file "
                    "is damaged, solve again")
    return array


class MoneyTable:
    """What the tables of games played for money (race and contact tables) answer
    alike, from their own answer(code) and values(codes)."""
    value_names: tuple

    def answers(self, codes) -> list[dict]:
        return [self.answer(code) for code in codes]

    def answer_text(self, code: int) -> str:
        """answer(code) in lines for people (backgammons and the Jacoby rule's equity
        where the table holds them)."""
        a = self.answer(code)
        eq, nd = a["equity"], a["equity_no_double"]
        backgammons = "win_backgammon" in a
        lines = [
            f"{self.game.name} position {json.dumps(self.game.to_json(code))}, the player on "
            "roll:",
            f"  cubeless: wins {a['win']:.6f} (gammon {a['win_gammon']:.6f}"
            + (f", backgammon {a['win_backgammon']:.6f}" if backgammons else "")
            + f"), loses a gammon {a['lose_gammon']:.6f}"
            + (f" (backgammon {a['lose_backgammon']:.6f})" if backgammons else "")
            + f", equity {eq['cubeless']:+.6f}",
            f"  cube centred: {a['cube']}; equity {eq['centered']:+.6f} "
            f"(not doubling now: {nd['centered']:+.6f})"]
        if "centered_jacoby" in nd:
            lines.append(f"  cube centred, Jacoby rule: equity {eq['centered_jacoby']:+.6f} "
                         f"(not doubling now: {nd['centered_jacoby']:+.6f})")
        return "\n".join(lines + [
            f"  cube owned: equity {eq['owned']:+.6f} (not doubling now: {nd['owned']:+.6f})",
            f"  cube on the other side: equity {eq['unavailable']:+.6f}",
            "  (equities in points per unit of cube value)"])

    def after_move(self, next_code: int, over: bool, win_points: int) -> dict:
        """The mover's equities after a move to `next_code` (seen by the opponent, on
        roll next): cubeless and with the cube as it stands for the mover (the
        opponent's view flipped: games/cube.py FLIP); win_points (1, 2, 3) if the move
        won, single in the Jacoby rule's centred cube."""
        states = ["cubeless", *(s for s in (*CUBEFUL, "centered_jacoby")
                                if s in self.value_names)]
        if over:
            return {s: 1.0 if s == "centered_jacoby" else float(win_points) for s in states}
        their = self.answer(next_code)["equity"]
        return {s: -their[FLIP.get(s, s)] for s in states}

    def decision_losses(self, counts, next_codes, infos, chosen) -> np.ndarray:
        """The judge of checker play without the cube (eval regret --cubeless): each
        decision's loss in cubeless winning chance, the best move's worth less the
        chosen one's."""
        live = np.arange(next_codes.shape[1]) < np.asarray(counts)[:, None]
        worth = move_worths(next_codes, infos, live, lambda codes: self.values(codes)[:, 0])
        return worth.max(axis=1) - worth[np.arange(len(worth)), chosen]


class RaceTable(MoneyTable):
    """A solved race table, read into memory and checked: the race kind of solution
    (solver/solution.py lists what every kind answers)."""

    def __init__(self, path, game: str | None = None, pieces: int | None = None,
                 rules: str | None = None):
        self.path = Path(path)
        with open_checked(self.path, FORMAT, RaceTableError, "table file",
                          "a tabula race table") as (f, self.attrs):
            self.game, names = read_header(self.path, self.attrs, RaceTableError, game,
                                           pieces, rules)
            self.arrays = {name: read_dataset(f, self.path, f"values/{name}", RaceTableError)
                           for name in names}
            self.rolls = read_dataset(f, self.path, "rolls", RaceTableError)
        n = self.game.race.n_sides(self.game.pieces)
        if any(v.shape != (n, n) for v in self.arrays.values()):
            raise RaceTableError(f"{self.path}: values are not {n} x {n} (the sides of "
                                 f"{self.game.pieces} checkers)")
        self._check_values()

    def _check_values(self):
        """Every value within what it can be (a chance in 0..1, an equity within the
        game's bound) and a number: a file written with other values and checksums to
        match is refused, as a layered table is."""
        names = [name for name in self.arrays]
        if self.arrays and names != list(race_value_names(self.game)):
            raise RaceTableError(f"{self.path} holds the values {', '.join(names)}, not "
                                 f"those of {self.game.describe()}: solve again")
        for name, low, high in zip(names, *value_bounds(names)):
            values = self.arrays[name]
            if values.size and not (values.min() >= low - 1e-6 and values.max() <= high + 1e-6):
                raise RaceTableError(f"{self.path}: {name} holds values that are not "
                                     f"{'chances' if low == 0 else 'equities'} (outside "
                                     f"{low:g}..{high:g}, or not numbers): solve again")
        if self.rolls.size and not (self.rolls.min() >= -1e-9 and self.rolls.max() <= 1 + 1e-9):
            raise RaceTableError(f"{self.path}: rolls holds values that are not chances "
                                 "(outside 0..1, or not numbers): solve again")

    @property
    def value_names(self) -> tuple:
        return race_value_names(self.game)

    def verify(self, sample: int | None = None, seed: int | None = None) -> dict:
        """The values' SHA-256 against the file's (each dataset's CRC-32 was checked on
        opening) and the schema's fields. (Solved exactly in one pass, the table has no
        residual to sample: `sample` and `seed` are not used.)"""
        sha256 = arrays_sha256([*self.arrays.values(), self.rolls])
        missing = missing_fields(self.attrs)
        ok = sha256 == self.attrs["sha256"]
        return {"table": str(self.path), "sha256_ok": ok, "sha256": sha256,
                "missing_fields": missing, "ok": ok and not missing}

    @staticmethod
    def verify_text(report: dict) -> str:
        return (f"{report['table']}: sha256 {'ok' if report['sha256_ok'] else 'MISMATCH'}, "
                f"checksums of every dataset ok: {'ok' if report['ok'] else 'FAILED'}")

    def info(self) -> tuple[dict, str]:
        """What the file holds (tabula table info): as JSON, and in lines for people."""
        a = self.attrs
        n = self.game.race.n_sides(self.game.pieces)
        answer = {"file": str(self.path), **{k: a[k] for k in ("game", "rules", "pieces",
                                                               "sha256", "solve_seconds")},
                  "values": list(self.arrays), "sides": n,
                  "positions": two_sided_positions(self.game) if self.arrays else 0}
        return answer, "\n".join([
            f"{self.path}: {a['game']} ({a['rules']}), up to {a['pieces']} checkers a side, "
            f"{answer['positions']:,} positions ({n:,} sides), solved in one pass",
            f"  values {', '.join(self.arrays) or '(one-sided only)'}; the rolls to bear "
            "off of every side",
            f"  solved {a.get('created')} by tabula {a.get('code_version')} in "
            f"{a['solve_seconds']:.1f} s",
            f"  sha256 {a['sha256']}"])

    @property
    def layers(self) -> list:
        """The layers the table covers (both sides with a checker left)."""
        return self.game.solved_layers()

    def values(self, codes) -> np.ndarray:
        """float32 (n, k): the table's values of each code, in value_names order
        (solver/values.py), as a net learns them."""
        self._check_two_sided()
        race = self.game.race
        i, j = _side_pairs(race.side_index, race.side_bits, np.asarray(codes, dtype=np.int64))
        return np.stack([self.arrays[name][i, j] for name in race_value_names(self.game)], axis=1)

    def self_play(self, seed: int, first_game: int, n: int, explore: float,
                  alternatives: bool, capacity: int):
        """Table.self_play for a race: each game from a random start (each side's
        checkers on a composition drawn uniformly), both sides playing the best
        cubeless winning chance (solver/race_selfplay.py); no alternatives."""
        if alternatives:
            raise RaceTableError(f"{self.path}: --alternatives is not available for race "
                                 "tables (a race's self-play records the moves chosen alone)")
        self._check_two_sided()
        g, race = self.game, self.game.race
        out = np.empty(n * capacity, dtype=np.int64)
        counts = play_race_games(
            race.side_moves, race.side_index, race.side_of_index, race.side_bits,
            race.n_sides(g.pieces - 1), race.n_sides(g.pieces), self.arrays["win"],
            g.throws, cumulative(g.probs), g.max_moves, seed, first_game, explore, capacity,
            out)
        return counts, out, np.zeros(n * capacity, dtype=np.uint8)

    def _check_two_sided(self):
        if not self.arrays:
            raise RaceTableError(f"{self.path} is a one-sided table (--one-sided): it holds "
                                 "no two-sided values")

    def _at(self, code: int):
        race = self.game.race
        code = int(code)
        return (race.side_index(code & ((1 << race.side_bits) - 1)),
                race.side_index(code >> race.side_bits))

    def answer(self, code: int) -> dict:
        """Everything the table says of a position, as `tabula value --json` prints it."""
        self._check_two_sided()
        i, j = self._at(code)
        return answer_of({name: float(self.arrays[name][i, j])
                          for name in race_value_names(self.game)})

    def move_answers(self, code: int, moves: list) -> list[dict]:
        """Each legal move's equities to the mover, cubeless and in each cube state
        (game.legal_moves form; `code` is the position moved from)."""
        points = self.game.race.win_points(code)
        return [{"equity": self.after_move(m["position"], m["over"], points)} for m in moves]



def two_sided_positions(game) -> int:
    """Positions of the two-sided table: both sides with a checker left."""
    return (game.race.n_sides(game.pieces) - 1) ** 2


def memory_needed(game) -> int:
    """Bytes a two-sided solve holds at its peak: its float32 square arrays (win, the
    gammon chances where gammons happen, three cubeful equities) and two more while
    each is turned into the file's layout."""
    n = game.race.n_sides(game.pieces)
    return 4 * n * n * (len(race_value_names(game)) + 2)


def check_memory(game):
    """Refuse a two-sided solve that cannot fit in this machine's memory."""
    import os
    needed = memory_needed(game)
    have = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    if needed > have:
        raise RaceTableError(
            f"a two-sided table of {game.name} with {game.pieces} checkers needs about "
            f"{needed / 2**30:.0f} GiB of memory and this machine has {have / 2**30:.0f} "
            "GiB: solve fewer checkers, or only the one-sided table (--one-sided)")


def solve_race(game, out, threads=None, one_sided=False, quiet=False) -> dict:
    """Solve a race game into the table `out` (written as OUT.partial, then renamed):
    the two-sided values (unless one_sided) and the one-sided distributions."""
    import os
    import time

    import numba

    from tabula.infra.provenance import peak_memory_bytes

    from .one_sided import throws_to_bear_off
    from .two_sided import solve_two_sided

    if not one_sided:
        check_memory(game)
    if threads is not None:
        numba.set_num_threads(threads)
    started = time.time()
    values = {} if one_sided else solve_two_sided(game, quiet=quiet)
    rolls = throws_to_bear_off(game)
    seconds = time.time() - started
    out = Path(out)
    partial = out.with_name(out.name + ".partial")
    write_race_table(partial, game, values, rolls, {"solve_seconds": seconds})
    os.replace(partial, out)
    return {"game": game.name, "rules": game.rules, "pieces": game.pieces,
            "sides": game.race.n_sides(game.pieces),
            "positions": two_sided_positions(game) if values else 0, "wall_seconds": seconds,
            "peak_memory_bytes": peak_memory_bytes(), "out": str(out)}
