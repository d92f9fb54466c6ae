"""A labelled position set from a solved table: self-play with exploration, positions
drawn uniformly within layers and, if asked, games that never explore (the games
`tabula eval regret` scores a player on), split by position, shuffled, written.

Everything is a function of the seed: the same seed gives the same file, byte
for byte (on the same machine and code version, which the file records).
"""
import os
import time
from pathlib import Path

import numpy as np
from numba import njit, prange

from tabula.infra.batch import unrank_many
from tabula.infra.cluster import LocalCluster
from tabula.games.game import layer_id
from tabula.infra.rng import stream_key, uniform
from tabula.infra.progress import Progress
from tabula.infra.manifest import stamp

from tabula.solver.values import value_names

from .datafile import FORMAT, FORMAT_VERSION, SOURCES, SPLITS, data_sha256, write_data

GAMES_PER_CHUNK = 4096
FIRST_CAPACITY = 1024     # positions a game may meet before its chunk is replayed larger
SPLIT_STREAM = 1 << 62    # stream of the position -> split hash
UNIFORM_STREAM = 1 << 61  # streams of the uniform draws
PERFECT_PLAY = SOURCES.index("perfect-play")


def self_play(table, games: int, explore: float, seed: int, quiet=False,
              alternatives=False, first_game=0, cluster=None) -> tuple[np.ndarray, np.ndarray]:
    """Codes of every position met in games first_game .. first_game + games - 1 (in
    game order), and their source (0 met; 2 the result of a move not chosen, with
    `alternatives`). Chunks of GAMES_PER_CHUNK games run on `cluster` (default this
    process): a game's play follows from its number, wherever its chunk ran."""
    cluster = cluster or LocalCluster()
    what = table if cluster.in_process else str(table.path)
    firsts = range(first_game, first_game + games, GAMES_PER_CHUNK)
    arguments = ((what, seed, first, min(GAMES_PER_CHUNK, first_game + games - first),
                  explore, alternatives) for first in firsts)
    parts, part_kinds = [], []
    progress = Progress("self-play" if explore else "perfect play", games, "games",
                        quiet or not games)
    for first, (codes, kinds) in zip(firsts, cluster.map(self_play_chunk, arguments)):
        parts.append(codes)
        part_kinds.append(kinds)
        progress.update(min(first + GAMES_PER_CHUNK, first_game + games) - first_game)
    progress.done(f"{games:,} games, {sum(len(p) for p in parts):,} positions")
    if not parts:
        return np.empty(0, dtype=np.int64), np.empty(0, dtype=np.uint8)
    return np.concatenate(parts), np.concatenate(part_kinds)


def self_play_chunk(table, seed, first, n, explore, alternatives):
    """The positions met in games first .. first + n - 1 and their sources; `table`
    a solution, or its path (opened here)."""
    if isinstance(table, str):
        from tabula.solver.solution import open_shared
        table = open_shared(table)
    capacity = FIRST_CAPACITY * (table.game.max_moves if alternatives else 1)
    while True:   # the solution plays its perfect player (solver/selfplay.py)
        counts, out, kinds = table.self_play(seed, first, n, explore, alternatives, capacity)
        if (counts >= 0).all():
            break
        capacity *= 4   # a game met more positions than fit: play the chunk again
    used = np.arange(capacity)[None, :] < counts[:, None]
    return out.reshape(n, capacity)[used], kinds.reshape(n, capacity)[used]


def uniform_draws(table, n: int, seed: int) -> np.ndarray:
    """n codes: a non-terminal layer of the table uniformly, then a rank uniformly."""
    g = table.game
    layers = table.layers   # only layers with both sides in play are solved
    ids = np.array([layer_id(*p) for p in layers], dtype=np.int64)
    sizes = np.array([g.layer_size(*p) for p in layers], dtype=np.int64)
    layer_index, ranks = _draw_ranks(sizes, seed, n)
    return unrank_many(g.unrank, ids[layer_index], ranks)


@njit(parallel=True, cache=True)
def _draw_ranks(sizes, seed, n):
    layer_index = np.empty(n, dtype=np.int64)
    ranks = np.empty(n, dtype=np.int64)
    key = stream_key(seed, UNIFORM_STREAM)
    for i in prange(n):
        j = min(np.int64(uniform(key, 2 * i) * len(sizes)), len(sizes) - 1)
        layer_index[i] = j
        ranks[i] = min(np.int64(uniform(key, 2 * i + 1) * sizes[j]), sizes[j] - 1)
    return layer_index, ranks


@njit(parallel=True, cache=True)
def split_of(codes, seed, val_frac, test_frac):
    """0 train, 1 val, 2 test for each code: a hash of the position, not of the record,
    so every record of one position lands in the same split."""
    out = np.empty(len(codes), dtype=np.uint8)
    key = stream_key(seed, SPLIT_STREAM)
    for i in prange(len(codes)):
        u = uniform(key, codes[i])
        out[i] = 2 if u < test_frac else (1 if u < test_frac + val_frac else 0)
    return out


def generate(table, out, games: int, explore: float, uniform: int, seed: int,
             val_frac: float, test_frac: float, quiet=False, alternatives=False,
             perfect_games=0, cluster=None) -> dict:
    """Generate the set and write it to `out` (via OUT.partial, renamed when whole).
    The perfect_games games are numbered after the exploring ones, so they throw
    other dice. The games are played on `cluster` (default this process); the rest is
    done here."""
    started = time.time()
    table.values(np.array([table.game.start]))   # a table without values (a one-sided
                                                 # bear-off table) is refused before any work
    codes_play, kinds_play = self_play(table, games, explore, seed, quiet, alternatives,
                                       cluster=cluster)
    codes_perfect, _ = self_play(table, perfect_games, 0.0, seed, quiet, first_game=games,
                                 cluster=cluster)
    codes_play = np.concatenate([codes_play, codes_perfect])
    kinds_play = np.concatenate([kinds_play, np.full(len(codes_perfect), PERFECT_PLAY,
                                                     np.uint8)])
    t_play = time.time() - started
    t0 = time.time()
    codes_uniform = uniform_draws(table, uniform, seed)
    t_uniform = time.time() - t0
    codes = np.concatenate([codes_play, codes_uniform])
    source = np.concatenate([kinds_play, np.ones(len(codes_uniform), np.uint8)])
    t0 = time.time()
    values = table.values(codes).astype(np.float32)
    t_label = time.time() - t0
    settings = {"games": games, "explore": explore, "uniform": uniform, "seed": seed,
                "alternatives": alternatives, "perfect_games": perfect_games,
                "val_frac": val_frac, "test_frac": test_frac,
                "exploration": "game g explores at rate explore * u_g, u_g uniform in [0,1)"}
    counts = {"games": games, "self_play_records": int((kinds_play == 0).sum()),
              "alternative_records": int((kinds_play == 2).sum()),
              "uniform_records": len(codes_uniform),
              "perfect_play_records": len(codes_perfect)}
    made_from = {"table_sha256": table.attrs["sha256"], "table_file": table.path.name}
    written = write_set(table.game, out, codes, values, source, settings, counts, made_from)
    seconds = time.time() - started
    return {**written, "seconds": seconds, "self_play_seconds": t_play,
            "uniform_seconds": t_uniform, "label_seconds": t_label,
            "labelled_per_second": len(codes) / max(t_play + t_uniform + t_label, 1e-9)}


def write_set(game, out, codes, values, source, settings: dict, counts: dict,
              made_from: dict) -> dict:
    """Split the labelled records by position (settings' seed, val_frac and test_frac),
    shuffle each split and write the set to `out` (via OUT.partial, renamed when
    whole); made_from: the fields naming what labelled them (a table's checksum, or
    the search that taught them)."""
    seed = settings["seed"]
    which = split_of(codes, seed, settings["val_frac"], settings["test_frac"])
    shuffle = np.random.default_rng([seed, 7])
    splits, counts = {}, dict(counts)
    for k, name in enumerate(SPLITS):
        index = np.flatnonzero(which == k)
        index = index[shuffle.permutation(len(index))]
        splits[name] = {"codes": codes[index], "values": values[index],
                        "source": source[index]}
        counts[f"{name}_records"] = len(index)
        counts[f"{name}_positions"] = len(np.unique(codes[index]))
    meta = stamp(FORMAT, FORMAT_VERSION, game, created=False)
    attrs = {**meta, "machine": _json(meta["machine"]), "n_features": game.encoding.n_features,
             "value_names": _json(list(value_names(game))), **made_from,
             "settings": _json(settings), "counts": _json(counts),
             "sources": _json(list(SOURCES))}
    out = Path(out)
    partial = out.with_name(out.name + ".partial")
    try:
        write_data(partial, splits, attrs)
        os.replace(partial, out)
    finally:
        partial.unlink(missing_ok=True)   # nothing half-written is left behind
    return {"out": str(out), "counts": counts, "settings": settings,
            "data_sha256": data_sha256(splits)}


def _json(obj) -> str:
    import json
    return json.dumps(obj, sort_keys=True)
