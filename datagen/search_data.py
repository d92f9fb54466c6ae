"""Labelled positions taught by tree search instead of a table (issue 51): where no
table exists, the search is the teacher.

Self-play games of the search `mcts:SIMS[:LEAF]` (both sides, lockstep, eval.engine),
and at each searched decision, every move labels the position it reaches: the
search's value of the move (at least one throw of expectimax over the search's leaf,
eval/mcts.py), turned into the value for whoever throws next there (the contract's
`worth` is its own inverse for a move that did not win). A move that wins needs no
label. The teacher needs a leaf that values positions (the heuristic or a network):
random playouts value a move by the mean of a few random games, too rough to teach. With
set-ups drawn at random (EinStein) and the dice, the games spread out by themselves.

The set is written as `tabula datagen` writes one (datagen/generate.py: write_set),
its records of source "search", naming its teacher instead of a table. Beside it, a
decision set (datagen/decision_set.py) of the searched decisions with two or more
moves: each move's worth by the search and its share of the root's visits, the
targets of the training's decision loss (data.decision_set). It holds only decisions
none of whose positions lies in the validation or test split, so that no held-out
position is trained on through a decision.
"""
import time

import numpy as np

from tabula.datagen.datafile import SOURCES
from tabula.datagen.decision_set import write_decision_set
from tabula.datagen.generate import split_of, write_set
from tabula.eval.blocks import run_blocks
from tabula.eval.engine import play
from tabula.eval.players import Player, PlayerError, SearchSpec, mcts_player
from tabula.games.game import OVER, worths
from tabula.games import parse_variant
from tabula.infra.cluster import LocalCluster
from tabula.infra.errors import TabulaError
from tabula.infra.progress import Progress


def teacher_player(game, teacher: str, searched=None) -> Player:
    """The search `teacher` names, which must have a leaf that values positions and
    no time limit (data that replays exactly): a recipe's teacher is checked by
    building it before any work."""
    kind, _, arg = teacher.partition(":")
    spec, reason = None, ""
    try:
        spec = SearchSpec.parse(arg) if kind == "mcts" else None
    except PlayerError as err:
        reason = f": {err}"
    if spec is None or spec.leaf == "playout" or spec.ms is not None:
        raise TabulaError(f"the teacher must be a tree search with a leaf that values "
                          f"positions and no time limit, mcts:SIMS:heuristic or "
                          f"mcts:SIMS:MODEL.onnx, not {teacher[:200]!r}{reason}")
    return mcts_player(teacher, game, spec, searched=searched)


def search_data(game, teacher: str, out, games: int, seed: int, val_frac: float,
                test_frac: float, quiet=False, decisions_out=None, cluster=None) -> dict:
    """Play `games` games of the search `teacher` (an mcts spec) against itself and
    write the positions its moves reach, labelled by the search, to `out`; and with
    decisions_out, its decisions to that decision set. The games are played in blocks
    on `cluster` (default this process; eval/blocks.py): the same file wherever."""
    started = time.time()
    player = teacher_player(game, teacher)   # refused here, before any work
    cluster = cluster or LocalCluster()
    made = (game if cluster.in_process else str(game.variant), teacher,
            decisions_out is not None)
    progress = Progress(f"self-play of {teacher}", None, "turns", quiet)
    parts = run_blocks(cluster, search_block, made, np.arange(games) % 2, np.arange(games),
                       seed, progress.update)
    progress.done(f"{games:,} games")
    codes = np.concatenate([part[1] for part in parts])
    values = np.concatenate([part[2] for part in parts])
    decided = [decisions for part in parts for decisions in part[3]]
    source = np.full(len(codes), SOURCES.index("search"), dtype=np.uint8)
    settings = {"games": games, "teacher": teacher, "seed": seed,
                "val_frac": val_frac, "test_frac": test_frac}
    counts = {"games": games, "search_records": len(codes),
              "decisions": sum(int(part[0].decisions.sum()) for part in parts)}
    made_from = {"teacher": teacher, "teacher_model_sha256": player.model_sha256 or ""}
    written = write_set(game, out, codes, values, source, settings, counts, made_from)
    if decisions_out is not None:
        kept = _searched_decisions(decided, game.max_moves, seed, val_frac, test_frac)
        made_from = {**made_from, "data_sha256": written["data_sha256"], "split": "train",
                     "seed": seed}
        written["decision_set"] = write_decision_set(decisions_out, game, kept[:5], made_from,
                                                     shares=kept[5])
    return {**written, "seconds": time.time() - started}


def search_block(game, teacher, with_decisions, first, throw_streams, seed, first_game,
                 progress=None) -> tuple:
    """One block of the teacher's games (eval/blocks.py): its engine.Played, the codes
    and values its searches labelled, and with_decisions, its searched decisions
    (codes, counts, next codes, infos, worths, visit shares), each in search order."""
    if isinstance(game, str):
        game = parse_variant(game)
    codes, values, decided = [], [], []

    def keep(positions, counts, next_codes, infos, visits, worth):
        legal = np.arange(next_codes.shape[1]) < counts[:, None]
        taught = legal & ((infos & OVER) == 0)
        codes.append(next_codes[taught])
        values.append(worths(infos[taught], worth[taught]))
        if not with_decisions:
            return
        choice = counts >= 2
        decided.append((positions[choice], counts[choice], next_codes[choice],
                        infos[choice], worth[choice].astype(np.float32),
                        (visits[choice] / visits[choice].sum(1, keepdims=True))
                        .astype(np.float32)))

    player = teacher_player(game, teacher, searched=keep)
    played = play(game, [player, player], first, throw_streams, seed, progress=progress,
                  first_game=first_game)
    return (played, np.concatenate(codes) if codes else np.zeros(0, np.int64),
            (np.concatenate(values) if values else np.zeros(0)).astype(np.float32), decided)


def _searched_decisions(decided: list, max_moves: int, seed, val_frac, test_frac) -> tuple:
    """The searched decisions (codes, counts, next codes, infos, worths, shares) none of
    whose labelled positions lies in the validation or test split (write_set's
    split_of)."""
    if not decided:
        return (np.zeros(0, np.int64), np.zeros(0, np.int64),
                *(np.zeros((0, max_moves), t) for t in (np.int64, np.int64, np.float32,
                                                        np.float32)))
    codes, counts, next_codes, infos, values, shares = (np.concatenate(a)
                                                        for a in zip(*decided))
    legal = np.arange(max_moves) < counts[:, None]
    labelled = legal & ((infos & OVER) == 0)
    held_out = split_of(next_codes.ravel(), seed, val_frac, test_frac).reshape(
        next_codes.shape) != 0
    train = ~(labelled & held_out).any(1)
    return codes[train], counts[train], next_codes[train], infos[train], values[train], \
        shares[train]
