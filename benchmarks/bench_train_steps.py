"""Training throughput as `tabula train` runs it: Lightning fit steps of the Ur
recipe as issue 21 measured it (batch 4,096, of which 1,024 positions are also
decisions, bfloat16 hidden layers; then its finetune stage, which adds 128 searched
decisions), in samples (values rows) per second over the steps after a warm-up. The
time spent before the first step (making the decisions, loading the splits) is
given apart. configs/pipeline/ur7.yaml now makes 2,048 decisions a batch; these
settings stay so that runs of this script compare across commits.

    python benchmarks/bench_train_steps.py data/ur7.h5 tables/ur7.h5 [--steps 300]
        [--accelerator cpu|gpu] [--name train_steps]
"""
import argparse
import sys
import time
from pathlib import Path

import lightning as L
import torch

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from benchmarks.common import report, run_script  # noqa: E402
from tabula.training.data import ValueData  # noqa: E402
from tabula.training.model import ValueNet  # noqa: E402

RECIPES = {   # name: (model settings, data settings), as issue 21 measured them
    "decisions": ({"decision_weight": 1.0, "bf16_epochs": 1}, {"decisions": 1024}),
    "decisions + searched": ({"decision_weight": 3.0, "search_weight": 9.0,
                              "bf16_epochs": 1}, {"decisions": 1024, "searched": 128}),
}


class StepTimer(L.Callback):
    """When the first step started, and the wall time from the start of step `warmup`
    to the end of the last step."""

    def __init__(self, warmup: int):
        self.warmup, self.first, self.start, self.end = warmup, None, None, None

    def on_train_batch_start(self, trainer, *_):
        if self.first is None:
            self.first = time.perf_counter()
        if trainer.global_step == self.warmup:
            self._sync(trainer)
            self.start = time.perf_counter()

    def on_train_batch_end(self, trainer, *_):
        self._sync(trainer)
        self.end = time.perf_counter()

    @staticmethod
    def _sync(trainer):
        if trainer.strategy.root_device.type == "cuda":
            torch.cuda.synchronize()


def measure(args, model_settings, data_settings) -> dict:
    torch.manual_seed(0)
    data = ValueData(args.data, batch_size=4096, table=args.table, **data_settings)
    game = data.file.game
    model = ValueNet(game.name, game.pieces, [256, 256, 64], lr=0.002, **model_settings)
    timer = StepTimer(args.warmup)
    trainer = L.Trainer(accelerator=args.accelerator, devices=1, max_steps=args.steps,
                        limit_val_batches=0, logger=False, enable_checkpointing=False,
                        enable_progress_bar=False, enable_model_summary=False,
                        callbacks=[timer])
    started = time.perf_counter()
    trainer.fit(model, data)
    steps = args.steps - args.warmup
    seconds = timer.end - timer.start
    return {"steps timed": steps, "seconds": round(seconds, 2),
            "ms a step": round(1000 * seconds / steps, 2),
            "samples/s": round(4096 * steps / seconds),
            "before the first step (s)": round(timer.first - started, 1)}


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("data")
    parser.add_argument("table")
    parser.add_argument("--steps", type=int, default=300)
    parser.add_argument("--warmup", type=int, default=30)
    parser.add_argument("--accelerator", default="cpu")
    parser.add_argument("--name", default="train_steps", help="results/NAME.json")
    args = parser.parse_args()
    rows = [{"losses": name, **measure(args, *settings)} for name, settings in RECIPES.items()]
    report(args.name, rows, {"accelerator": args.accelerator,
                             "threads": torch.get_num_threads()})


if __name__ == "__main__":
    run_script(main)
