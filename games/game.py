"""The surface every game module offers, and the errors it raises.

A game is a set of numba-compiled functions on packed integer position codes
(always seen by the player about to throw) plus a few Python helpers for the
human-readable JSON form. Generic code (solver, data generation, players) takes
a `Game` and passes its compiled functions into its own compiled kernels.

Compiled functions of every game:
  moves(code, throw, out_codes, out_info) -> n
      Writes the n legal moves for `throw`. out_codes[i] is the resulting
      position seen by whoever throws next (the mover if they throw again,
      otherwise the opponent; also the opponent's view when the game is over).
      out_info[i] packs from | to << 5 | again << 10 | over << 11.
      n == 0 means the throw passes the turn.
  mirror(code) -> code     the same board with the other side to throw
  layer_of(code) -> id     layer id = a * 8 + b, a and b the pieces still in
                           play (not borne off) of the mover and the opponent
  rank(code) -> int        dense, gap-free index inside the layer
  unrank(layer_id, rank) -> code
  progress(code) -> int    how far both sides have come (solver sweep order)

Not compiled: features(codes) -> float32 (n, n_features), the networks' input of a
torch int64 batch of codes (see games/features.py).
"""
from dataclasses import dataclass
from typing import Callable

import numpy as np

LAYER_STRIDE = 8  # layer id = a * LAYER_STRIDE + b
AGAIN = 1 << 10   # move info flag: the mover throws again
OVER = 1 << 11    # move info flag: the move won the game


class TabulaError(ValueError):
    """A mistake in what a user asked for or gave (position, file, setting): the
    command line prints it as one line and exits with status 2."""


class PositionError(TabulaError):
    """A position (or throw) that cannot occur under the game's rules."""


def unpack_info(info: int) -> dict:
    return {"from": info & 31, "to": (info >> 5) & 31,
            "again": bool((info >> 10) & 1), "over": bool((info >> 11) & 1)}


def layer_id(a: int, b: int) -> int:
    return a * LAYER_STRIDE + b


def layer_pair(layer: int) -> tuple[int, int]:
    return divmod(layer, LAYER_STRIDE)


@dataclass(frozen=True)
class Game:
    name: str
    rules: str
    pieces: int
    throws: np.ndarray           # the possible throws
    probs: np.ndarray            # their probabilities (float64, sum 1)
    max_moves: int               # upper bound on legal moves for one throw
    off_square: int              # the `to` of a move that bears a piece off
    layers: tuple                # (a, b) pairs of this variant, in-play counts
    layer_size: Callable         # (a, b) -> number of positions in the layer
    start: int                   # code of the start position
    moves: Callable
    mirror: Callable
    layer_of: Callable
    rank: Callable
    unrank: Callable
    progress: Callable
    to_json: Callable            # code -> dict
    from_json: Callable          # (dict, pieces) -> code, raises PositionError
    features: Callable           # torch int64 codes (n,) -> float32 (n, n_features)
    n_features: int

    def position_from_json(self, obj) -> int:
        return self.from_json(obj, self.pieces)

    def check_throw(self, throw: int):
        if throw not in self.throws:
            raise PositionError(
                f"throw {throw} is impossible in {self.name}: throws are "
                f"{', '.join(str(int(t)) for t in self.throws)}")

    def legal_moves(self, code: int, throw: int) -> list[dict]:
        """The legal moves of `code` for `throw`, as dicts (slow path, for people)."""
        self.check_throw(throw)
        out_codes = np.zeros(self.max_moves, dtype=np.int64)
        out_info = np.zeros(self.max_moves, dtype=np.int64)
        n = self.moves(np.int64(code), np.int64(throw), out_codes, out_info)
        return [dict(unpack_info(int(out_info[i])), position=int(out_codes[i]),
                     info=int(out_info[i]))
                for i in range(n)]

    def total_positions(self) -> int:
        return sum(self.layer_size(a, b) for a, b in self.layers)
