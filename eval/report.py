"""`tabula eval report`: the standard set of players measured against the table,
written as REPORT.md, results.json and PNG plots, with provenance."""
import json
from pathlib import Path

import numpy as np

from tabula.infra.errors import TabulaError
from tabula.infra.manifest import missing_fields, stamp
from tabula.infra.schemas import ReportResults, read_json

from .measures import regret
from .players import make_player

FORMAT, FORMAT_VERSION = "tabula-report", 1   # results.json's provenance
STANDARD_PLAYERS = ["random", "heuristic", "expectimax:1", "expectimax:2", "perfect"]
COLUMNS = [("player", "player", "{}"), ("games", "games", "{:,}"),
           ("decisions_per_game", "decisions/game", "{:.1f}"),
           ("error_rate", "error rate", "{:.1%}"),
           ("loss_per_decision_points", "loss/decision (pts)", "{:.4f}"),
           ("loss_per_game_points", "loss/game (pts)", "{:.3f}"),
           ("worst_loss_points", "worst loss (pts)", "{:.2f}"),
           ("win_rate_vs_perfect", "wins vs perfect", "{:.1%}")]


def short_name(spec: str) -> str:
    """A player's name for tables and plots: net:runs/x/model.int8.onnx -> net (model.int8)."""
    kind, _, model = spec.partition(":")
    if kind in ("net", "net+search") and model:
        return f"{kind} ({Path(model).name.removesuffix('.onnx')})"
    return spec


def summary_table(rows) -> str:
    """The results as a Markdown table (also what the pipeline prints)."""
    lines = ["| " + " | ".join(title for _, title, _ in COLUMNS) + " | 95% interval (pts) |",
             "|" + "---|" * (len(COLUMNS) + 1)]
    for r in rows:
        cells = [fmt.format(short_name(r[key]) if key == "player" else r[key])
                 for key, _, fmt in COLUMNS]
        low, high = r["loss_per_game_ci95"]
        lines.append("| " + " | ".join(cells) + f" | {low:.3f} .. {high:.3f} |")
    return "\n".join(lines)


def write_report(table, specs, games, seed, out: Path, quiet=True) -> dict:
    game = table.game
    out.mkdir(parents=True, exist_ok=True)
    results = []
    for spec in specs:
        results.append(regret(table, make_player(spec, game, table), games, seed, quiet))
    _plots(results, out)
    return write_report_files(
        table, [r.summary for r in results], games, seed, out,
        f"How much winning chance each player gives away: {game.name}, pieces={game.pieces}",
        f"Each player played {games:,} games against the perfect player (first throw "
        f"alternating, seed {seed}). For every decision with two or more legal moves the "
        f"table gives the loss: the best move's winning chance minus the chosen move's, "
        f"in percentage points. An error is a loss above 2e-6.", summary_table)


def report_writer(game) -> tuple:
    """How a report on `game` is written, and the players it scores when none are
    named: money play with the doubling cube scores checker and cube decisions apart
    (eval/cube_report.py), every other game one loss a decision (write_report)."""
    if game.cube is not None:
        from .cube_report import write_cube_report   # here: cube_report imports this module
        return write_cube_report, ["perfect"]
    return write_report, STANDARD_PLAYERS


def write_report_files(table, rows, games, seed, out: Path, title: str, method: str,
                       table_of) -> dict:
    """results.json (provenance and rows) and REPORT.md (title, method, the rows as
    table_of(rows) makes them, the plots, provenance) of a report whose plots are in."""
    provenance = {**stamp(FORMAT, FORMAT_VERSION, table.game), "table": str(table.path),
                  "table_sha256": table.attrs["sha256"], "games": games, "seed": seed}
    (out / "results.json").write_text(json.dumps({"provenance": provenance, "players": rows},
                                                 indent=2) + "\n")
    models = "".join(f"- {short_name(r['player'])}: `{r['player']}`, model SHA-256 "
                     f"{r['model_sha256']}\n" for r in rows if r["model_sha256"])
    (out / "REPORT.md").write_text(
        f"# {title}\n\n{method}\n\n{table_of(rows)}\n\n![loss per game](loss_per_game.png)"
        f"\n\n![loss distribution](loss_distribution.png)\n\n## Provenance\n\n"
        f"- table `{table.path}`, SHA-256 {provenance['table_sha256']}\n{models}"
        f"- code {provenance['code_version']}, {provenance['created']}\n"
        f"- machine {provenance['machine']['cpu']}, {provenance['machine']['cores']} cores\n")
    return {"out": str(out), "players": rows, "provenance": provenance,
            "table_markdown": table_of(rows)}


def verify_report(folder: Path) -> dict:
    """A report folder: results.json with the schema's fields, REPORT.md and the plots."""
    results = folder / "results.json"
    if not results.is_file():
        raise TabulaError(f"{folder} holds no results.json: not a report (tabula eval report)")
    provenance = read_json(results, ReportResults, TabulaError).provenance
    missing = missing_fields(provenance)
    absent = [name for name in ("REPORT.md", "loss_per_game.png", "loss_distribution.png")
              if not (folder / name).is_file()]
    return {"report": str(folder), "provenance": provenance, "missing_fields": missing,
            "missing_files": absent, "ok": not missing and not absent}


def _plots(results, out: Path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    names = [short_name(r.summary["player"]) for r in results]
    means = np.array([r.summary["loss_per_game_points"] for r in results])
    lows, highs = (np.array([r.summary["loss_per_game_ci95"][i] for r in results])
                   for i in (0, 1))
    fig, ax = plt.subplots(figsize=(8, 4.5))
    shown = np.maximum(means, 1e-3)   # perfect play's 0 on a log scale
    ax.barh(names, shown, xerr=np.nan_to_num([means - lows, highs - means]), capsize=3,
            color="#4a7ab5")
    ax.set_xscale("log")
    for y, value in enumerate(means):
        ax.annotate(f"{value:.3g}", (shown[y], y), xytext=(4, 0), textcoords="offset points",
                    va="center", fontsize=9)
    ax.invert_yaxis()
    ax.set_xlabel("winning chance given away per game (points, log scale)")
    ax.set_title("Loss per game against the perfect player (95% interval)")
    fig.tight_layout()
    fig.savefig(out / "loss_per_game.png", dpi=110)
    plt.close(fig)
    plot_loss_distribution(names, [r.loss_points for r in results], 2e-4, 2, out)


def plot_loss_distribution(names, losses, smallest: float, largest_power: int, out: Path):
    """loss_distribution.png: a histogram (log scale) of each player's losses above
    `smallest`, in line styles that stay apart where the curves overlap."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(figsize=(8, 4.5))
    bins = np.logspace(np.log10(smallest), largest_power, 49)
    styles = ["-", "--", ":", "-."]
    for i, (name, points) in enumerate(zip(names, losses)):
        errors = points[points > smallest]
        if len(errors):
            ax.hist(errors, bins=bins, histtype="step", linewidth=1.6,
                    linestyle=styles[i % len(styles)], label=name)
    ax.set_xscale("log")
    ax.set_xlabel("loss of a wrong decision (points, log scale)")
    ax.set_ylabel("decisions")
    ax.set_title("How large the mistakes are")
    if ax.get_legend_handles_labels()[0]:
        ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(out / "loss_distribution.png", dpi=110)
    plt.close(fig)
