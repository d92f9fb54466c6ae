"""The report of races with the doubling cube (tabula pipeline, race games): each
player's losses in checker play and cube decisions (eval/cube_regret.py), written as
REPORT.md, results.json and PNG plots with provenance, like eval/report.py's."""
from pathlib import Path

import numpy as np

from .cube_regret import cube_regret
from .players import money_player
from .report import plot_loss_distribution, short_name, write_report_files

COLUMNS = [("player", "player", "{}"), ("games", "games", "{:,}"),
           ("loss_per_game_points", "loss/game (pts)", "{:.4f}"),
           ("checker_loss_per_game_points", "checker play (pts)", "{:.4f}"),
           ("checker_error_rate", "checker errors", "{:.2%}"),
           ("cube_loss_per_game_points", "cube (pts)", "{:.4f}"),
           ("cube_error_rate", "cube errors", "{:.2%}"),
           ("worst_loss_points", "worst loss (pts)", "{:.3f}")]


def cube_summary_table(rows) -> str:
    lines = ["| " + " | ".join(title for _, title, _ in COLUMNS) + " |",
             "|" + "---|" * len(COLUMNS)]
    for r in rows:
        lines.append("| " + " | ".join(
            fmt.format(short_name(r[key]) if key == "player" else r[key])
            for key, _, fmt in COLUMNS) + " |")
    return "\n".join(lines)


def write_cube_report(table, specs, games, seed, out: Path, quiet=True) -> dict:
    game = table.game
    players = [money_player(spec, game, table) for spec in specs]   # refused before any is played
    out.mkdir(parents=True, exist_ok=True)
    results = [cube_regret(table, player, games, seed, quiet) for player in players]
    _plots(results, out)
    return write_report_files(
        table, [r.summary for r in results], games, seed, out,
        f"How many points each player gives away: {game.name}, {game.pieces} checkers, "
        "money play with the doubling cube",
        f"Each player played {games:,} games against itself from random starts with "
        f"{game.pieces} checkers a side, cube centred (seed {seed}). The table scores every "
        "decision, in points at the cube value of the moment: checker play by the best "
        "move's equity less the chosen one's, cube decisions (double or not, take or pass) "
        "likewise. An error is a loss above 1e-6.", cube_summary_table)


def _plots(results, out: Path):
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
    plot_loss_distribution(names, [r.loss_points for r in results], 1e-5, 1, out)
