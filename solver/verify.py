"""Check a table file: its checksum, and the Bellman residual on a sample of every layer."""

import numpy as np

from tabula.games.game import layer_id
from tabula.infra.batch import unrank_many
from tabula.infra.manifest import missing_fields
from tabula.solver.bellman import table_bellman

RESIDUAL_BOUND = 1e-6


def verify_table(table, sample=100_000, seed=0) -> dict:
    """The report of Table.verify (table: a solver.table.Table)."""
    path = table.path
    sha256 = table.values_sha256()
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
    residuals = [v["residual"] for v in layers.values()]
    worst = float("nan") if np.isnan(residuals).any() else max(residuals)
    sane = all(v["values_in_0_1"] for v in layers.values())
    sha_ok = sha256 == table.attrs["sha256"]
    missing = missing_fields(table.attrs)
    return {"table": str(path), "sha256_ok": sha_ok, "sha256": sha256,
            "values_ok": sane, "max_residual": worst, "residual_bound": RESIDUAL_BOUND,
            "missing_fields": missing,
            "ok": sha_ok and sane and worst <= RESIDUAL_BOUND and not missing,
            "layers": layers}
