"""Check a table file: its checksum, and the Bellman residual at the positions where
games begin and on a sample of every layer."""

import os

import numpy as np

from tabula.games.game import layer_id
from tabula.infra.batch import per_code, unrank_many
from tabula.infra.manifest import missing_fields
from tabula.solver.bellman import table_bellman

RESIDUAL_BOUND = 1e-6


def start_codes(table, most: int | None = None, rng=None) -> np.ndarray:
    """Where the table's games begin: every pair of set-ups of a game whose sides set
    up (or `most` pairs drawn with `rng`, where there are more), else its start; none
    when the table lacks the start's layer (--max-total)."""
    game = table.game
    if game.setup is None:
        codes = [game.start]
    else:
        pairs = len(game.setup.arrangements) ** 2
        codes = game.setup.starts(None if most is None or pairs <= most
                                  else rng.choice(pairs, most))
    codes = np.array(codes, dtype=np.int64)
    held = np.isin(per_code(game.layer_of, codes), [layer_id(a, b) for a, b in table.layers])
    return codes[held]


def spot_residual(table, per_layer: int = 16, seed: int = 0) -> float:
    """The largest Bellman residual over a few positions of each layer (milliseconds):
    checked whenever a table is opened, as verify_table checks at length, so that a
    file whose values are not a solution of its game (its checksums recomputed to
    match) is refused rather than believed."""
    rng = np.random.default_rng(seed)
    ids, ranks = [], []
    for a, b in table.layers:
        size = table.game.layer_size(a, b)
        if size:
            chosen = rng.integers(size, size=min(per_layer, size))
            ids.append(np.full(len(chosen), layer_id(a, b)))
            ranks.append(chosen)
    if not ids:
        return 0.0
    ids, ranks = np.concatenate(ids), np.concatenate(ranks)
    # and where games begin: no position leads back there, so the layers' sample misses
    # them
    starts = start_codes(table, per_layer * 4, rng)
    codes = np.concatenate([unrank_many(table.game.unrank, ids, ranks), starts])
    stored = table.values(codes).astype(np.float64)
    return float(np.abs(table_bellman(table, codes) - stored).max())


def residual_bound(table) -> float:
    """What a table's residual may be: RESIDUAL_BOUND, or twice the tolerance it was
    solved to where that is larger."""
    return max(RESIDUAL_BOUND, 2 * float(table.attrs.get("tolerance") or 0.0))


def verify_table(table, sample=100_000, seed=None) -> dict:
    """The report of Table.verify (table: a solver.table.Table): the checksum, sane
    values, the Bellman residual at every start position (no other position leads back
    to one, so a sample would miss a forged start) and on a sample of every layer,
    drawn afresh each time unless `seed` is given (the report says which seed)."""
    path = table.path
    sha256 = table.values_sha256()
    seed = int.from_bytes(os.urandom(4), "little") if seed is None else seed
    rng = np.random.default_rng(seed)
    layers = {}
    for a, b in table.layers:
        size = table.game.layer_size(a, b)
        ranks = (np.arange(size) if size <= sample
                 else np.sort(rng.choice(size, sample, replace=False)))
        codes = unrank_many(table.game.unrank, np.full(len(ranks), layer_id(a, b)), ranks)
        values = table.layer(a, b)
        sane = bool(np.isfinite(values).all() and (values >= 0).all() and (values <= 1).all())
        stored = values[ranks].astype(np.float64)
        residual = float(np.abs(table_bellman(table, codes) - stored).max())
        layers[f"{a}_{b}"] = {"checked": int(len(ranks)), "positions": size,
                              "residual": residual, "values_in_0_1": sane}
    starts = start_codes(table)
    start_residual = float(np.abs(table_bellman(table, starts) - table.values(starts).astype(
        np.float64)).max()) if len(starts) else 0.0
    residuals = [v["residual"] for v in layers.values()] + [start_residual]
    worst = float("nan") if np.isnan(residuals).any() else max(residuals)
    sane = all(v["values_in_0_1"] for v in layers.values())
    sha_ok = sha256 == table.attrs["sha256"]
    missing = missing_fields(table.attrs)
    return {"table": str(path), "sha256_ok": sha_ok, "sha256": sha256,
            "values_ok": sane, "max_residual": worst, "residual_bound": residual_bound(table),
            "seed": seed, "starts": {"checked": int(len(starts)), "residual": start_residual},
            "missing_fields": missing,
            "ok": sha_ok and sane and worst <= residual_bound(table) and not missing,
            "layers": layers}
