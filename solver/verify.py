"""Check a table file: its checksum, and the Bellman residual on a sample of every layer."""
import hashlib

import h5py
import numpy as np

from games.game import layer_id
from games.batch import unrank_many
from solver.bellman import table_bellman
from solver.table import Table, dataset_name

RESIDUAL_BOUND = 1e-6


def verify_table(path, sample=100_000, seed=0) -> dict:
    table = Table(path)
    digest = hashlib.sha256()
    with h5py.File(path, "r") as f:
        for p in table.layers:
            digest.update(np.asarray(f[dataset_name(*p)][...], dtype=np.float32).tobytes())
    rng = np.random.default_rng(seed)
    layers = {}
    for a, b in table.layers:
        size = table.game.layer_size(a, b)
        ranks = (np.arange(size) if size <= sample
                 else np.sort(rng.choice(size, sample, replace=False)))
        codes = unrank_many(table.game.unrank, np.full(len(ranks), layer_id(a, b)), ranks)
        stored = table.layer(a, b)[ranks].astype(np.float64)
        residual = float(np.abs(table_bellman(table, codes) - stored).max())
        layers[f"{a}_{b}"] = {"checked": int(len(ranks)), "positions": size,
                              "residual": residual}
    worst = max(v["residual"] for v in layers.values())
    sha_ok = digest.hexdigest() == table.attrs["sha256"]
    return {"table": str(path), "sha256_ok": sha_ok, "sha256": digest.hexdigest(),
            "max_residual": worst, "residual_bound": RESIDUAL_BOUND,
            "ok": sha_ok and worst <= RESIDUAL_BOUND, "layers": layers}
