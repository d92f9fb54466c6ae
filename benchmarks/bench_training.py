"""Training throughput of the default model, reading batches from the HDF5 file and
from memory, and the share of time spent waiting on data; then from the file with
the hidden layers in bfloat16 (model.bf16_epochs).

    python benchmarks/bench_training.py data/ur7.h5 [--batches 1500] [--hidden 256 256 64]
"""
import argparse
import sys
import time
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from benchmarks.common import report, run_script  # noqa: E402
from tabula.training.data import ValueData  # noqa: E402
from tabula.training.model import ValueNet  # noqa: E402


def run(data, model, batches):
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    loader = iter(data.train_dataloader())
    waiting = computing = 0.0
    samples = 0
    for _ in range(batches):
        t0 = time.perf_counter()
        batch = next(loader)
        codes, values = batch["codes"], batch["values"]
        t1 = time.perf_counter()
        loss = model._loss(model(codes), values)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        computing += time.perf_counter() - t1
        waiting += t1 - t0
        samples += len(codes)
    return samples, waiting, computing


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("data")
    parser.add_argument("--batches", type=int, default=1500)
    parser.add_argument("--batch-size", type=int, default=4096)
    parser.add_argument("--hidden", type=int, nargs="+", default=[256, 256, 64])
    args = parser.parse_args()
    rows = []
    for in_memory, bf16 in ((True, False), (False, False), (False, True)):
        torch.manual_seed(0)
        data = ValueData(args.data, batch_size=args.batch_size, in_memory=in_memory)
        game = data.file.game
        model = ValueNet(game.name, game.pieces, args.hidden)
        model.bf16 = bf16
        run(data, model, 20)   # warm up (and, in memory, load the split)
        samples, waiting, computing = run(data, model, args.batches)
        total = waiting + computing
        rows.append({"source": "memory" if in_memory else "HDF5 file",
                     "hidden layers": "bfloat16" if bf16 else "float32",
                     "parameters": model.parameter_count(), "samples": samples,
                     "samples/s": round(samples / total),
                     "waiting on data": f"{waiting / total:.1%}",
                     "seconds": round(total, 1)})
    ratio = rows[1]["seconds"] / rows[0]["seconds"]
    speedup = rows[1]["seconds"] / rows[2]["seconds"]
    print(f"epoch time from HDF5 / from memory: {ratio:.3f} (target <= 1.2); "
          f"bfloat16 hidden layers {speedup:.2f} times as fast as float32")
    report("training", rows, {"hdf5_over_memory": ratio, "bf16_speedup": speedup,
                              "threads": torch.get_num_threads()})


if __name__ == "__main__":
    run_script(main)
