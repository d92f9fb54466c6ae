"""The results a player throws away in a game that may be drawn (checkers endgames),
judged by its outcome table (solver/outcome_table.py).

Such a game has no throws to average over and may never end, so a player is not scored
over games but decision by decision, at positions drawn uniformly from the table's
layers (a layer at random, then a position in it): a decision throws a result away
when the player's move turns a win into a draw or a loss, or a draw into a loss, where
the table's best move keeps it. A slower win than the best is not a result thrown away;
it is counted apart.
"""
import time

import numpy as np

from tabula.infra.batch import all_throws
from tabula.infra.progress import Progress
from tabula.runtime.sampling import uniform_positions

LOSS, DRAW, WIN = 0, 1, 2   # OutcomeTable.move_outcomes' results
CHUNK = 4096   # decisions a player is asked at once


def thrown_results(table, player, positions: int, seed: int, quiet=True) -> dict:
    """`player`'s decisions at `positions` positions drawn uniformly (seed), those with
    two or more moves scored by the table (see the module's docstring)."""
    started = time.time()
    game = table.game
    codes = uniform_positions(game, positions, seed)
    rng = np.random.default_rng(seed)
    progress = Progress(f"results {player.spec}", positions, "positions", quiet)
    tally = {"decisions": 0, "win_to_draw": 0, "win_to_loss": 0, "draw_to_loss": 0,
             "slower_wins": 0, "faster_losses": 0}
    for first in range(0, positions, CHUNK):
        chunk = codes[first:first + CHUNK]
        counts, next_codes, infos = (a[:, 0] for a in all_throws(   # the one throw
            game.moves, game.mirror, game.throws, game.max_moves, chunk))
        keep = counts >= 2
        counts, next_codes, infos = counts[keep], next_codes[keep], infos[keep]
        chosen = player.choose(chunk[keep], counts, next_codes, infos,
                               rng.random(int(keep.sum())))
        result, plies = table.move_outcomes(counts, next_codes, infos)
        best = result.max(axis=1)
        got = result[np.arange(len(chosen)), chosen]
        got_plies = plies[np.arange(len(chosen)), chosen]
        fastest_win = np.where(result == WIN, plies, np.iinfo(np.int64).max).min(axis=1)
        slowest_loss = np.where(result == LOSS, plies, -1).max(axis=1)
        tally["decisions"] += len(chosen)
        tally["win_to_draw"] += int(((best == WIN) & (got == DRAW)).sum())
        tally["win_to_loss"] += int(((best == WIN) & (got == LOSS)).sum())
        tally["draw_to_loss"] += int(((best == DRAW) & (got == LOSS)).sum())
        tally["slower_wins"] += int(((got == WIN) & (got_plies > fastest_win)).sum())
        tally["faster_losses"] += int(((best == LOSS) & (got_plies < slowest_loss)).sum())
        progress.update(min(first + CHUNK, positions))
    progress.done()
    thrown = tally["win_to_draw"] + tally["win_to_loss"] + tally["draw_to_loss"]
    decisions = max(tally["decisions"], 1)
    return {"player": player.spec, "positions": positions, "seed": seed, **tally,
            "thrown_away": thrown, "thrown_away_rate": thrown / decisions,
            "seconds": time.time() - started, "model_sha256": player.model_sha256}


def thrown_text(result: dict) -> str:
    d = max(result["decisions"], 1)
    return (f"{result['player']}: {result['decisions']:,} decisions at {result['positions']:,} "
            f"positions drawn uniformly; results thrown away at {result['thrown_away']:,} "
            f"({result['thrown_away_rate']:.3%}): a win to a draw {result['win_to_draw']:,}, "
            f"a win to a loss {result['win_to_loss']:,}, a draw to a loss "
            f"{result['draw_to_loss']:,}; slower wins {result['slower_wins']:,} "
            f"({result['slower_wins'] / d:.2%}), faster losses {result['faster_losses']:,}")
