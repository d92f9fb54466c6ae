"""Expectimax over throws, batched: the value of many positions searched `depth`
throws ahead, with a leaf evaluator applied to whole arrays (the heuristic, an
ONNX model, the table). Depth 0 is the leaf itself.

Moves of one decision are held in rows of width max_moves with a count per row
("decision form"): codes (n,), counts (n,), next_codes (n, M), infos (n, M).
A throw with no legal move is treated as one move to the mirrored position that
passes the turn, so forfeits need no special case.
"""
import numpy as np

from tabula.infra.batch import all_throws
from tabula.games.game import move_worths

SEARCH_BUDGET = 2_000_000   # leaf positions evaluated at once, at most


def decision_form(game, moves):
    """One decision, from move dicts (game.legal_moves), in decision form:
    counts (1,), next_codes (1, M), infos (1, M)."""
    next_codes = np.zeros((1, game.max_moves), dtype=game.code_dtype)
    infos = np.zeros((1, game.max_moves), dtype=np.int64)
    next_codes[0, :len(moves)] = [m["position"] for m in moves]
    infos[0, :len(moves)] = [m["info"] for m in moves]
    return np.array([len(moves)]), next_codes, infos


def position_values(game, codes, depth, leaf):
    """V of each code (the player about to throw), searched `depth` throws ahead."""
    if depth == 0 or len(codes) == 0:
        return leaf(codes)
    counts, next_codes, infos = all_throws(game.moves, game.mirror, game.throws,
                                           game.max_moves, codes)
    live = np.arange(game.max_moves) < counts[..., None]
    worth = move_worths(next_codes, infos, live,
                        lambda c: position_values(game, c, depth - 1, leaf))
    return worth.max(axis=2) @ game.probs


def decision_worths(game, counts, next_codes, infos, depth, leaf):
    """Worth of each move of decisions in decision form, searched `depth` throws past
    the move (chunked so that at most SEARCH_BUDGET leaves are live at once)."""
    n = len(counts)
    branching = (len(game.throws) * 4) ** depth * 4
    chunk = max(1, SEARCH_BUDGET // branching)
    out = np.empty(next_codes.shape)
    for s in range(0, n, chunk):
        live = np.arange(game.max_moves) < counts[s:s + chunk, None]
        out[s:s + chunk] = move_worths(next_codes[s:s + chunk], infos[s:s + chunk], live,
                                       lambda c: position_values(game, c, depth, leaf))
    return out


def first_best(worths) -> np.ndarray:
    """Index of the best move of each row (the first of equals)."""
    return np.argmax(worths, axis=1)
