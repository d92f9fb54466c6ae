"""`tabula eval report`: players measured against the table, written as REPORT.md,
results.json and PNG plots, with provenance. One writer for every game: a game played
for money with the doubling cube has more kinds of decision, so its report scores
checker play and cube decisions apart, in points of equity (eval/cube_regret.py);
every other game's scores one loss a decision in points of winning chance
(eval/measures.py)."""
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import numpy as np

from tabula.infra.errors import TabulaError
from tabula.infra.manifest import missing_fields, stamp
from tabula.infra.schemas import ReportResults, read_json

from .cube_regret import cube_regret, starts_text
from .measures import regret
from .players import make_player, money_player

FORMAT, FORMAT_VERSION = "tabula-report", 1   # results.json's provenance
CHANCE_COLUMNS = [("player", "player", "{}"), ("games", "games", "{:,}"),
           ("decisions_per_game", "decisions/game", "{:.1f}"),
           ("error_rate", "error rate", "{:.1%}"),
           ("loss_per_decision_points", "loss/decision (pts)", "{:.4f}"),
           ("loss_per_game_points", "loss/game (pts)", "{:.3f}"),
           ("worst_loss_points", "worst loss (pts)", "{:.2f}"),
           ("win_rate_vs_perfect", "wins vs perfect", "{:.1%}")]
MONEY_COLUMNS = [("player", "player", "{}"), ("games", "games", "{:,}"),
                 ("loss_per_game_points", "loss/game (pts)", "{:.4f}"),
                 ("checker_loss_per_game_points", "checker play (pts)", "{:.4f}"),
                 ("checker_error_rate", "checker errors", "{:.2%}"),
                 ("cube_loss_per_game_points", "cube (pts)", "{:.4f}"),
                 ("cube_error_rate", "cube errors", "{:.2%}"),
                 ("worst_loss_points", "worst loss (pts)", "{:.3f}")]


def short_name(spec: str) -> str:
    """A player's name for tables and plots: net:runs/x/model.int8.onnx -> net (model.int8)."""
    kind, _, model = spec.partition(":")
    if kind in ("net", "net+search") and model:
        return f"{kind} ({Path(model).name.removesuffix('.onnx')})"
    return spec


def summary_table(rows) -> str:
    """The results as a Markdown table (also what the pipeline prints): with the cube,
    checker play and cube decisions apart; else with each loss's 95% interval."""
    money = "cube_loss_per_game_points" in rows[0]
    columns = MONEY_COLUMNS if money else CHANCE_COLUMNS
    interval = "" if money else " 95% interval (pts) |"
    lines = ["| " + " | ".join(title for _, title, _ in columns) + " |" + interval,
             "|" + "---|" * (len(columns) + (not money))]
    for r in rows:
        cells = [fmt.format(short_name(r[key]) if key == "player" else r[key])
                 for key, _, fmt in columns]
        low_high = "" if money else " {:.3f} .. {:.3f} |".format(*r["loss_per_game_ci95"])
        lines.append("| " + " | ".join(cells) + " |" + low_high)
    return "\n".join(lines)


@dataclass(frozen=True)
class Measure:
    """What a report measures of a game's players, and how it says so."""
    players: tuple        # those scored when none are named
    player: Callable      # (spec, game, table) -> the player of a spec
    result: Callable      # (table, player, games, seed, quiet) -> a result (summary,
                          # loss_points)
    title: str            # formatted with the game
    method: str           # formatted with the game, games and seed
    plot: Callable        # (results, out) -> loss_per_game.png
    smallest: float       # the least loss the loss distribution shows ...
    largest_power: int    # ... and the largest, as a power of ten
    on_clusters: bool     # whether result takes a cluster= to play its games on


def measure_of(game) -> Measure:
    """How a report on `game` measures its players: in winning chance against the
    perfect player, or with the doubling cube in points of equity."""
    return MONEY if game.cube is not None else CHANCE


def write_report(table, specs, games, seed, out: Path, quiet=True, cluster=None) -> dict:
    """Measure each player of `specs` (refused before any is played) and write the
    report into the folder `out`; the games on `cluster` where the measure plays them
    in blocks (not yet money play with the cube), else in this process."""
    game, measure = table.game, measure_of(table.game)
    players = [measure.player(spec, game, table) for spec in specs]
    out.mkdir(parents=True, exist_ok=True)
    where = {"cluster": cluster} if measure.on_clusters else {}   # else in this process
    results = [measure.result(table, player, games, seed, quiet, **where)
               for player in players]
    measure.plot(results, out)
    names = [short_name(r.summary["player"]) for r in results]
    plot_loss_distribution(names, [r.loss_points for r in results], measure.smallest,
                           measure.largest_power, out)
    return write_report_files(table, [r.summary for r in results], games, seed, out,
                              measure.title.format(game=game),
                              measure.method.format(game=game, games=games, seed=seed,
                                                    starts=starts_text(game)))


def write_report_files(table, rows, games, seed, out: Path, title: str, method: str) -> dict:
    """results.json (provenance and rows) and REPORT.md (title, method, the rows'
    summary table, the plots, provenance) of a report whose plots are in."""
    provenance = {**stamp(FORMAT, FORMAT_VERSION, table.game), "table": str(table.path),
                  "table_sha256": table.attrs["sha256"], "games": games, "seed": seed}
    (out / "results.json").write_text(json.dumps({"provenance": provenance, "players": rows},
                                                 indent=2) + "\n")
    models = "".join(f"- {short_name(r['player'])}: `{r['player']}`, model SHA-256 "
                     f"{r['model_sha256']}\n" for r in rows if r["model_sha256"])
    (out / "REPORT.md").write_text(
        f"# {title}\n\n{method}\n\n{summary_table(rows)}\n\n![loss per game](loss_per_game.png)"
        f"\n\n![loss distribution](loss_distribution.png)\n\n## Provenance\n\n"
        f"- table `{table.path}`, SHA-256 {provenance['table_sha256']}\n{models}"
        f"- code {provenance['code_version']}, {provenance['created']}\n"
        f"- machine {provenance['machine']['cpu']}, {provenance['machine']['cores']} cores\n")
    return {"out": str(out), "players": rows, "provenance": provenance,
            "table_markdown": summary_table(rows)}


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


def _chance_plot(results, out: Path):
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


def _money_plot(results, out: Path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    names = [short_name(r.summary["player"]) for r in results]
    fig, ax = plt.subplots(figsize=(8, 3 + 0.4 * len(names)))
    checker = np.array([r.summary["checker_loss_per_game_points"] for r in results])
    cube = np.array([r.summary["cube_loss_per_game_points"] for r in results])
    ax.barh(names, checker, color="#4a7ab5", label="checker play")
    ax.barh(names, cube, left=checker, color="#d08c3a", label="cube decisions")
    ax.invert_yaxis()
    ax.set_xlabel("points given away per game")
    ax.set_title("Loss per game against perfect play, by kind of decision")
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(out / "loss_per_game.png", dpi=110)
    plt.close(fig)


CHANCE = Measure(
    ("random", "heuristic", "expectimax:1", "expectimax:2", "perfect"), make_player, regret,
    "How much winning chance each player gives away: {game.name}, pieces={game.pieces}",
    "Each player played {games:,} games against the perfect player (first throw "
    "alternating, seed {seed}). For every decision with two or more legal moves the "
    "table gives the loss: the best move's winning chance minus the chosen move's, "
    "in percentage points. An error is a loss above 2e-6.", _chance_plot, 2e-4, 2, True)
MONEY = Measure(
    ("perfect",), money_player, cube_regret,
    "How many points each player gives away: {game.name}, {game.pieces} checkers, money "
    "play with the doubling cube",
    "Each player played {games:,} games against itself {starts}, cube centred (seed "
    "{seed}). The table scores every "
    "decision, in points at the cube value of the moment: checker play by the best "
    "move's equity less the chosen one's, cube decisions (double or not, take or pass) "
    "likewise. An error is a loss above 1e-6.", _money_plot, 1e-5, 1, False)
