"""Players: anything that picks one of the legal moves of a batch of decisions.

A player is given decisions in decision form (see eval.search) plus one uniform
random number per decision (so random choices are reproducible), and returns the
index of its chosen move for each. Specs, as typed on the command line:
  random               a uniformly random legal move
  heuristic            the best afterstate by the hand-made evaluation
  expectimax:N         N throws of expectimax over the heuristic (N = 1, 2, 3)
  perfect              the best move by the table (needs a table)
  net:MODEL.onnx       the best afterstate by the network
  net+search:MODEL.onnx  one throw of expectimax over the network
  mcts:SIMS[xL][/Tms][:LEAF]  tree search of SIMS simulations a move (eval/mcts.py);
                       LEAF: playout (the default), heuristic, or MODEL.onnx, the
                       last two with +K to mix in K random playouts a position; xL
                       (mcts:2000x16:MODEL.onnx): a valuing leaf values L leaves of the
                       tree at once; /Tms (mcts:5000/20ms) stops a search after T
                       milliseconds too
"""
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import numpy as np

from tabula.infra.errors import TabulaError
from tabula.infra.batch import evaluate_many

from .equities import Equities, move_equities
from .search import decision_worths, first_best


class PlayerError(TabulaError):
    """A player spec that cannot be built."""


@dataclass
class Player:
    """A player's choices; with the doubling cube (games/cube.py), moves and cube actions
    follow its money view of positions, `equities` (eval/equities.py)."""
    spec: str
    game: object       # the variant it plays (games.Game)
    choose: Callable   # (codes, counts, next_codes, infos, rand) -> chosen indices
    model_sha256: str | None = None
    seconds: float | None = None   # a search's time limit a call (mcts:SIMS/Tms); one who
                                   # replies to a person may lower it (tabula/session.py)
    equities: Callable | None = None   # codes -> Equities; None: it cannot play for money

    def money_move(self, next_codes, overs, state, win_points) -> int:
        """The move of best equity, the cube in `state` for the mover."""
        return int(np.argmax(move_equities(self.equities, next_codes, overs, state,
                                           win_points)))

    def doubles(self, code, state) -> bool:
        return self.equities(np.array([code])).doubles(state)

    def takes(self, code) -> bool:
        """Facing a double in `code` (seen by the doubler)."""
        return self.equities(np.array([code])).takes()


MONEY_PLAYERS = "perfect, heuristic and net:MODEL.onnx"


def money_player(spec: str, game, table=None, model=None) -> Player:
    """make_player's player, refused unless it can play with the doubling cube."""
    player = make_player(spec, game, table, model)
    if player.equities is None:
        raise PlayerError(f"player {spec!r} cannot play with the doubling cube: players "
                          f"with the cube are {MONEY_PLAYERS}")
    return player


def search_player(spec, game, leaf, depth) -> Player:
    def choose(codes, counts, next_codes, infos, rand):
        return first_best(decision_worths(game, counts, next_codes, infos, depth, leaf))
    return Player(spec, game, choose)


def make_player(spec: str, game, table=None, model=None) -> Player:
    """The player of `spec` for `game` (see the module docstring). `model`: the network
    of a net spec, already opened (an OnnxValueModel of that file), so that a server
    playing many games opens and checks each file once."""
    kind, _, arg = spec.partition(":")
    if kind == "random":
        return Player(spec, game, lambda codes, counts, nxt, infos, rand:
                      np.minimum((rand * counts).astype(np.int64), counts - 1))
    if kind == "perfect":
        if table is None:
            raise PlayerError("player 'perfect' needs a table (--table FILE)")
        def equities(codes):
            return Equities(table.values(codes), table.value_names)
        if len(table.value_names) > 1:   # a race table: the best cubeless winning chance
            player = search_player(spec, game, lambda c: _win_column(table.values(c)), 0)
        else:
            player = Player(spec, game, lambda codes, counts, nxt, infos, rand:
                            table.best_moves(counts, nxt, infos))
        player.equities = equities
        return player
    if kind in ("heuristic", "expectimax"):
        depth = 0
        if kind == "expectimax":
            if arg not in ("1", "2", "3"):
                raise PlayerError(f"expectimax takes a depth of 1, 2 or 3 throws "
                                  f"(expectimax:2), not {arg!r}")
            depth = int(arg)
        player = search_player(spec, game, lambda c: evaluate_many(game.heuristic, c), depth)
        if depth == 0:
            player.equities = lambda c: Equities(evaluate_many(game.heuristic, c), ("win",))
        return player
    if kind in ("net", "net+search"):
        if not arg:
            raise PlayerError(f"{kind} needs a model: {kind}:MODEL.onnx")
        model = _model(game, arg, model)
        player = search_player(spec, game, lambda c: _win_column(model.predict(c)),
                               1 if kind == "net+search" else 0)
        player.model_sha256 = model.manifest["sha256"]
        if kind == "net":
            player.equities = lambda c: Equities(model.predict(c), model.value_names)
        return player
    if kind == "mcts":
        return mcts_player(spec, game, arg, model)
    raise PlayerError(f"unknown player {spec!r}: players are random, heuristic, "
                      "expectimax:N, perfect, net:MODEL.onnx, net+search:MODEL.onnx, "
                      "mcts:SIMS[xL][/Tms][:LEAF]")


MAX_SIMS = 1_000_000
MAX_MS = 600_000
MAX_LEAVES = 1024
MAX_PLAYOUTS = 10_000   # K of LEAF+K


def mcts_player(spec, game, arg, model=None, searched=None) -> Player:
    """mcts:SIMS[xL][/Tms][:LEAF]: each decision searched by eval.mcts; its random playouts
    drawn from the decision's random number, so a game replays exactly. searched:
    called with (codes, counts, next_codes, infos, visits, values) of each batch
    searched (the labels of tabula/search_data.py)."""
    from .mcts import best_moves, search
    budget, _, leaf_name = arg.partition(":")
    sims, leaves, seconds = _search_budget(budget)
    leaf_name, playouts = _mixed_leaf(leaf_name or "playout")
    if (leaves > 1 or playouts) and leaf_name == "playout":
        raise PlayerError(f"{spec}: xL and +K are for a heuristic or network leaf; "
                          "playouts run one simulation at a time")
    sha256 = None
    if leaf_name == "playout":
        leaf = None
    elif leaf_name == "heuristic":
        def leaf(codes):
            return evaluate_many(game.heuristic, codes)
    else:
        model = _model(game, leaf_name, model)
        sha256 = model.manifest["sha256"]

        def leaf(codes):
            return _win_column(model.predict(codes))

    def choose(codes, counts, next_codes, infos, rand):
        keys = (rand * 2.0 ** 53).astype(np.uint64)
        visits, values = search(game, counts, next_codes, infos, keys, sims, leaf,
                                player.seconds, leaves, playouts)
        if searched is not None:
            searched(codes, counts, next_codes, infos, visits, values)
        return best_moves(counts, visits, values, by_value=leaf is not None)
    player = Player(spec, game, choose, sha256, seconds)
    return player


def _mixed_leaf(text: str) -> tuple[str, int]:
    """'MODEL.onnx+32' as ('MODEL.onnx', 32): the leaf, and the random playouts a
    position mixed into its values (0: none)."""
    name, plus, count = text.rpartition("+")
    if not plus:
        return text, 0
    if not (count.isdigit() and 1 <= int(count) <= MAX_PLAYOUTS):
        raise PlayerError(f"mcts takes random playouts mixed into a leaf from 1 to "
                          f"{MAX_PLAYOUTS:,} (mcts:200:MODEL.onnx+32), not {count!r}")
    return name, int(count)


def _search_budget(text: str) -> tuple[int, int, float | None]:
    """'1000', '2000x16' or '5000/20ms' as (simulations, leaves a step, seconds or
    None)."""
    sims_leaves, slash, ms = text.partition("/")
    sims, x, leaves = sims_leaves.partition("x")
    if not sims.isdigit() or not 1 <= int(sims) <= MAX_SIMS:
        raise PlayerError(f"mcts takes simulations a move from 1 to {MAX_SIMS:,} "
                          f"(mcts:1000 or mcts:1000:MODEL.onnx), not {sims!r}")
    if x and not (leaves.isdigit() and 1 <= int(leaves) <= MAX_LEAVES):
        raise PlayerError(f"mcts takes leaves valued at once from 1 to {MAX_LEAVES} "
                          f"(mcts:2000x16:MODEL.onnx), not {leaves!r}")
    leaves = int(leaves) if x else 1
    if not slash:
        return int(sims), leaves, None
    if not (ms.endswith("ms") and ms[:-2].isdigit() and 1 <= int(ms[:-2]) <= MAX_MS):
        raise PlayerError(f"mcts takes a time limit a move in milliseconds, 1 to "
                          f"{MAX_MS:,} (mcts:5000/20ms), not {ms!r}")
    return int(sims), leaves, int(ms[:-2]) / 1000


def _win_column(values):
    """The winning chance of a network's values (a race network gives more columns)."""
    return values if values.ndim == 1 else values[:, 0]


def _model(game, path, model=None):
    """The network at `path` for `game` (`model`: already opened, if it is that file)."""
    from tabula.export.model_file import OnnxValueModel
    if model is None or model.path != Path(path):
        model = OnnxValueModel(path, game=game.name, pieces=game.pieces, rules=game.rules)
    return model
