"""The learning curve of a training run: training loss by step (smoothed), validation
loss by epoch and the learning rate, from the run's metrics.csv (Lightning's CSV
logger), as a PNG."""
import csv
from pathlib import Path

import numpy as np


def read_metrics(path: Path) -> dict[str, list[tuple[int, float]]]:
    """Each logged metric as (step, value) pairs, in order."""
    series = {}
    with open(path, newline="") as handle:
        for row in csv.DictReader(handle):
            step = int(row.get("step") or 0)
            for key, value in row.items():
                if key not in ("epoch", "step") and value not in ("", None):
                    series.setdefault(key, []).append((step, float(value)))
    return series


def plot_learning_curve(metrics_csv: Path, out: Path) -> Path | None:
    """learning_curve.png from a run's metrics; None when nothing was logged."""
    if not metrics_csv.is_file():
        return None
    series = read_metrics(metrics_csv)
    if not series.get("train_loss") and not series.get("val_loss"):
        return None
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(figsize=(8, 4.5))
    if series.get("train_loss"):
        steps, values = map(np.array, zip(*series["train_loss"]))
        window = max(1, len(values) // 50)
        smooth = np.convolve(values, np.ones(window) / window, mode="valid")
        label = "training loss" + (f" (mean of {window} logged steps)" if window > 1 else "")
        ax.plot(steps[window - 1:], smooth, label=label)
    if series.get("val_loss"):
        steps, values = zip(*series["val_loss"])
        ax.plot(steps, values, "o-", label="validation loss (each epoch)")
    ax.set_xlabel("training step")
    ax.set_ylabel("loss")
    ax.set_title("Learning curve")
    lines, labels = ax.get_legend_handles_labels()
    if series.get("lr"):   # on its own axis: it shows where a time limit stopped the run
        steps, values = zip(*series["lr"])
        rate = ax.twinx()
        lines += rate.plot(steps, values, color="grey", linestyle=":", label="learning rate")
        labels.append("learning rate")
        rate.set_ylabel("learning rate")
        rate.set_ylim(bottom=0)
    ax.legend(lines, labels)
    fig.tight_layout()
    fig.savefig(out, dpi=110)
    plt.close(fig)
    return out
