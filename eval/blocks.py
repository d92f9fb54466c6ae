"""A run of many games cut into blocks that may run anywhere (infra/cluster.py).

Games are numbered across the whole run, and a game's throws and its players'
random numbers come from streams named by its number (eval/engine.py), so a block
plays its games alike wherever it runs. The blocks are cut the same way on every
cluster, local included: the games of a block are played in lockstep together, and a
network's batch is the same batch wherever the block ran. The result is the same
bytes, local or on Ray.

In this process a block is handed the players themselves; elsewhere their specs, the
table's path and the variant's name, from which the worker makes them again (paths
read from the folder the run started in: every node must see the same files there).
"""
import numpy as np

from .engine import Played, play

BLOCK_GAMES = 2048   # games of a block (even: a duplicate pair is never cut in two)


def play_blocks(cluster, game, players, first, throw_streams, seed, table=None, judged=(),
                progress=None) -> Played:
    """engine.play of len(first) games, block by block on `cluster`; progress(turns
    played, estimated turns in all) as engine.play calls it (on a cluster, as each
    block ends)."""
    if cluster.in_process:
        made = (game, players, table, judged)
    else:
        made = (str(game.variant), [player.spec for player in players],
                None if table is None else str(table.path), judged)
    parts = run_blocks(cluster, play_block, made, first, throw_streams, seed, progress)
    return merge([played for played, in parts], range(0, len(first), BLOCK_GAMES))


def run_blocks(cluster, block, made: tuple, first, throw_streams, seed, progress=None):
    """[block(*made, first, throw_streams, seed, first_game, progress) for each block
    of BLOCK_GAMES games] on `cluster`; each returns a tuple whose first item is its
    engine.Played."""
    n = len(first)
    starts = range(0, n, BLOCK_GAMES)
    done_turns = 0

    def block_progress(end):
        def report(turns, estimate):   # the blocks still to come taken alike
            if estimate is not None:
                estimate = (done_turns + estimate) * n / end
            progress(done_turns + turns, estimate)
        return report if progress is not None and cluster.in_process else None

    arguments = ((*made, first[start:start + BLOCK_GAMES],
                  throw_streams[start:start + BLOCK_GAMES], seed, start,
                  block_progress(min(start + BLOCK_GAMES, n))) for start in starts)
    parts = []
    for start, part in zip(starts, cluster.map(block, arguments)):
        parts.append(part)
        done_turns += int(part[0].turns.sum())
        if progress is not None:
            end = min(start + BLOCK_GAMES, n)
            progress(done_turns, done_turns * n / end)
    return parts


def play_block(game, players, table, judged, first, throw_streams, seed, first_game,
               progress=None) -> tuple[Played]:
    """engine.play of one block; `game`, `players` and `table` as objects, or as a
    variant string, player specs and a table's path (made here)."""
    if isinstance(game, str):
        from tabula.games import parse_variant
        from tabula.solver.solution import open_shared
        from .players import make_player
        game = parse_variant(game)
        table = None if table is None else open_shared(table)
        players = [make_player(spec, game, table) for spec in players]
    return play(game, players, first, throw_streams, seed, table=table, judged=judged,
                progress=progress, first_game=first_game),


def merge(parts: list[Played], starts: list[int]) -> Played:
    """The blocks' results as one run's: games in order, decisions named by the run's
    game numbers; seconds the blocks' sum."""
    def cat(name):
        return np.concatenate([getattr(part, name) for part in parts])
    loss_game = np.concatenate([part.loss_game + start for part, start in zip(parts, starts)])
    return Played(cat("winners"), cat("decisions"), cat("moves_made"), loss_game,
                  cat("loss_slot"), cat("loss"), sum(part.seconds for part in parts),
                  cat("points"), cat("turns"))
