"""Players: anything that picks one of the legal moves of a batch of decisions.

A player is given decisions in decision form (see eval.search) plus one uniform
random number per decision (so random choices are reproducible), and returns the
index of its chosen move for each. Specs, as typed on the command line:
  random               a uniformly random legal move
  heuristic            the best afterstate by the hand-made evaluation
  expectimax:N         N throws of expectimax over the heuristic (N = 1, 2, 3)
  perfect              the best move by the table (needs a table)
  net:MODEL.onnx       the best afterstate by the network (by cubeless equity where
                       it gives gammons' chances: backgammon's contact networks, whose
                       bear-offs the bear-off tables value: solver/bear_offs.py)
  net+search:MODEL.onnx  one throw of expectimax over the network (over its cubeless
                       equity where it gives gammons' chances); with the cube, a
                       backgammon network's as contact_player says
  mcts:SIMS[xL][/Tms][:LEAF]  tree search of SIMS simulations a move (eval/mcts.py);
                       LEAF: playout (the default), heuristic, or MODEL.onnx, the
                       last two with +K to mix in K random playouts a position; xL
                       (mcts:2000x16:MODEL.onnx): a valuing leaf values L leaves of the
                       tree at once; /Tms (mcts:5000/20ms) stops a search after T
                       milliseconds too
  gnubg:N              GNU Backgammon's own choice at N plies (0..2): its
                       findbestmove, move filters and all (standard backgammon;
                       eval/gnubg_player.py); for money, its cube and cubeful moves
                       (eval/gnubg_money.py)
"""
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import numpy as np

from tabula.infra.errors import TabulaError
from tabula.infra.numbers import whole_number
from tabula.infra.batch import evaluate_many
from tabula.runtime.model_file import OnnxValueModel

from tabula.solver.bear_offs import with_bear_offs
from tabula.games.game import OVER
from tabula.solver.contact import cubeless_equity
from .equities import (CHANCES, Equities, cubeless_chooser, move_equities,
                       searched_chances, won_points)
from .search import decision_worths, first_best


class PlayerError(TabulaError):
    """A player spec that cannot be built."""


@dataclass
class Player:
    """A player's choices; with the doubling cube (games/cube.py), moves and cube actions
    follow its money view of positions, `equities` (eval/equities.py)."""
    spec: str
    game: object       # the variant it plays (games.Game)
    choose: Callable   # (codes, counts, next_codes, infos, rand, seconds=None) -> chosen
                       # indices; seconds: a time limit for this call, for a player that
                       # searches against the clock (tabula/session.py shares a reply's)
    model_sha256: str | None = None
    seconds: float | None = None   # its own time limit a call (mcts:SIMS/Tms), if any
    equities: Callable | None = None   # codes -> Equities; None: it cannot play for money
    cubeless_moves: bool = False   # its moves ignore the cube (a search): with the
                                   # cube it still moves by choose, the cube by equities
    money: object | None = None    # its own money play (eval/gnubg_money.py: GnubgMoney),
                                   # in place of equities

    def money_move(self, code, next_codes, overs, state, win_points) -> int:
        """The move from `code` of best equity, the cube in `state` for the mover."""
        if self.money is not None:
            return self.money.move(code, next_codes, state)
        return int(np.argmax(move_equities(self.equities, next_codes, overs, state,
                                           win_points)))

    def doubles(self, code, state) -> bool:
        if self.money is not None:
            return self.money.doubles(code, state)
        return self.equities(np.array([code])).doubles(state)

    def takes(self, code) -> bool:
        """Facing a double in `code` (seen by the doubler)."""
        if self.money is not None:
            return self.money.takes(code)
        return self.equities(np.array([code])).takes()

    def move_with_cube(self, code, next_codes, infos, cube, seat: int, draw: Callable,
                       seconds: float | None = None) -> int:
        """Its move from `code` for `seat` (the results next_codes, infos of its throw) in
        a game with the cube `cube` (a CubeState): by choose where its moves ignore the
        cube (cubeless_moves: a search, given the random number draw() returns), else by
        money_move (which draws none, so that a game's later throws stay as they were)."""
        if self.cubeless_moves:
            return int(self.choose(np.array([code]), np.array([len(infos)]), next_codes[None],
                                   infos[None], np.array([draw()]), seconds=seconds)[0])
        overs = (infos & OVER) != 0
        return self.money_move(code, next_codes, overs, self.game.cube.access(cube, seat),
                               won_points(self.game, cube, next_codes, overs))

    @property
    def plays_for_money(self) -> bool:
        return self.equities is not None or self.money is not None


MONEY_PLAYERS = "perfect, heuristic, net:MODEL.onnx, net+search:MODEL.onnx and gnubg:N"


def money_player(spec: str, game, table=None, model=None) -> Player:
    """make_player's player, refused unless it can play with the doubling cube."""
    player = make_player(spec, game, table, model)
    if not player.plays_for_money:
        raise PlayerError(f"player {spec!r} cannot play with the doubling cube: players "
                          f"with the cube are {MONEY_PLAYERS}")
    return player


def search_player(spec, game, leaf, depth) -> Player:
    def choose(codes, counts, next_codes, infos, rand, seconds=None):
        return first_best(decision_worths(game, counts, next_codes, infos, depth, leaf))
    return Player(spec, game, choose)


def make_player(spec: str, game, table=None, model=None) -> Player:
    """The player of `spec` for `game` (see the module docstring). `model`: the network
    of a net spec, already opened (an OnnxValueModel of that file), so that a server
    playing many games opens and checks each file once."""
    kind, _, arg = spec.partition(":")
    if kind == "random":
        def choose(codes, counts, next_codes, infos, rand, seconds=None):
            return np.minimum((rand * counts).astype(np.int64), counts - 1)
        return Player(spec, game, choose)
    if kind == "perfect":
        if table is None:
            raise PlayerError("player 'perfect' needs a table (--table FILE)")
        def equities(codes):
            return Equities(table.values(codes), table.value_names)
        if len(table.value_names) > 1:   # a race table: the best cubeless winning chance
            player = search_player(spec, game, lambda c: _win_column(table.values(c)), 0)
        else:
            def choose(codes, counts, next_codes, infos, rand, seconds=None):
                return table.best_moves(counts, next_codes, infos)
            player = Player(spec, game, choose)
        player.equities = equities
        return player
    if kind in ("heuristic", "expectimax"):
        depth = 0
        if kind == "expectimax":
            depth = whole_number(arg, 1, 3)
            if depth is None:
                raise PlayerError(f"expectimax takes a depth of 1, 2 or 3 throws "
                                  f"(expectimax:2), not {arg[:20]!r}")
        player = search_player(spec, game, lambda c: evaluate_many(game.heuristic, c), depth)
        if depth == 0:
            player.equities = lambda c: Equities(evaluate_many(game.heuristic, c), ("win",))
        return player
    if kind in ("net", "net+search"):
        if not arg:
            raise PlayerError(f"{kind} needs a model: {kind}:MODEL.onnx")
        model = _model(game, arg, model)
        contact = "lose_backgammon" in model.value_names   # points, not wins
        values_of = with_bear_offs(game, model.predict) if contact else model.predict

        def equities(codes):
            return Equities(values_of(codes), model.value_names)
        if contact:
            player = contact_player(spec, game, kind == "net+search", values_of,
                                    equities if model.manifest.get("self_play") is None
                                    else None)
        else:
            player = search_player(spec, game, lambda c: _win_column(model.predict(c)),
                                   1 if kind == "net+search" else 0)
            if kind == "net":
                player.equities = equities
        player.model_sha256 = model.manifest["sha256"]
        return player
    if kind == "mcts":
        return mcts_player(spec, game, SearchSpec.parse(arg), model)
    if kind == "gnubg":
        from .gnubg_player import MAX_PLIES, gnubg_player
        plies = whole_number(arg, 0, MAX_PLIES)
        if plies is None:
            raise PlayerError(f"gnubg takes a number of plies 0..{MAX_PLIES} (gnubg:0), "
                              f"not {arg[:20]!r}")
        return gnubg_player(spec, game, plies)
    raise PlayerError(f"unknown player {spec!r}: players are random, heuristic, "
                      "expectimax:N, perfect, net:MODEL.onnx, net+search:MODEL.onnx, "
                      "mcts:SIMS[xL][/Tms][:LEAF], gnubg:N")


def contact_player(spec, game, searches: bool, values_of, learned_cube=None) -> Player:
    """A backgammon network's player (values_of: codes -> its nine values, the
    bear-offs' chances from their tables). It moves by cubeless equity, looking one throw
    ahead if it `searches` (the Master). Its cube: `learned_cube`, the network's own cube
    columns as Equities, where it learned them from a table's exact cubeful values; else
    Janowski's model over its chances (searched, for the Master; eval/equities.py), as
    for a network taught by self-play, whose cube columns measured worse (one roll's
    backups: docs/BENCHMARKS.md)."""
    def chances(codes):
        return values_of(codes)[:, :len(CHANCES)]
    if searches:
        chances = searched_chances(game, chances)

    def cubeless(codes):
        return cubeless_equity(*chances(codes).T)
    player = Player(spec, game, cubeless_chooser(game, cubeless), cubeless_moves=searches)
    player.equities = learned_cube or (lambda codes: Equities.of_chances(chances(codes)))
    return player


MAX_SIMS = 1_000_000
MAX_MS = 600_000
MAX_LEAVES = 1024
MAX_PLAYOUTS = 10_000   # K of LEAF+K


@dataclass(frozen=True)
class SearchSpec:
    """A tree search as mcts:SIMS[xL][/Tms][:LEAF[+K]] writes it (see the module's
    docstring), parsed once (parse) and written back (str)."""
    sims: int
    leaves: int = 1              # leaves valued at once
    ms: int | None = None        # a time limit a move (None: simulations alone)
    leaf: str = "playout"        # playout, heuristic, or a network's path
    playouts: int = 0            # random playouts mixed into a valuing leaf

    @property
    def seconds(self) -> float | None:
        return None if self.ms is None else self.ms / 1000

    def __str__(self) -> str:
        leaves = f"x{self.leaves}" if self.leaves > 1 else ""
        ms = f"/{self.ms}ms" if self.ms is not None else ""
        leaf = "" if self.leaf == "playout" else f":{self.leaf}"
        playouts = f"+{self.playouts}" if self.playouts else ""
        return f"mcts:{self.sims}{leaves}{ms}{leaf}{playouts}"

    @classmethod
    def parse(cls, arg: str) -> "SearchSpec":
        """The spec of 'SIMS[xL][/Tms][:LEAF[+K]]' (what follows mcts:), or a
        PlayerError saying what is wrong."""
        budget, _, leaf = arg.partition(":")
        sims_leaves, slash, ms = budget.partition("/")
        sims, x, leaves = sims_leaves.partition("x")
        if whole_number(sims, 1, MAX_SIMS) is None:
            raise PlayerError(f"mcts takes simulations a move from 1 to {MAX_SIMS:,} "
                              f"(mcts:1000 or mcts:1000:MODEL.onnx), not {sims[:20]!r}")
        if x and whole_number(leaves, 1, MAX_LEAVES) is None:
            raise PlayerError(f"mcts takes leaves valued at once from 1 to {MAX_LEAVES} "
                              f"(mcts:2000x16:MODEL.onnx), not {leaves[:20]!r}")
        if slash and not (ms.endswith("ms") and whole_number(ms[:-2], 1, MAX_MS)):
            raise PlayerError(f"mcts takes a time limit a move in milliseconds, 1 to "
                              f"{MAX_MS:,} (mcts:5000/20ms), not {ms[:20]!r}")
        leaf = leaf or "playout"
        name, plus, count = leaf.rpartition("+")
        if plus:
            leaf = name
        if plus and whole_number(count, 1, MAX_PLAYOUTS) is None:
            raise PlayerError(f"mcts takes random playouts mixed into a leaf from 1 to "
                              f"{MAX_PLAYOUTS:,} (mcts:200:MODEL.onnx+32), not {count[:20]!r}")
        spec = cls(int(sims), int(leaves) if x else 1, int(ms[:-2]) if slash else None, leaf,
                   int(count) if plus else 0)
        if (spec.leaves > 1 or spec.playouts) and spec.leaf == "playout":
            raise PlayerError(f"mcts:{arg}: xL and +K are for a heuristic or network leaf; "
                              "playouts run one simulation at a time")
        return spec


def mcts_player(spec: str, game, search_spec: SearchSpec, model=None,
                searched=None) -> Player:
    """The player `spec`, a tree search (search_spec): each decision searched by
    eval.mcts; its random playouts drawn from the decision's random number, so a game
    replays exactly. searched: called with (codes, counts, next_codes, infos, visits,
    values) of each batch searched (the labels of datagen/search_data.py)."""
    from .mcts import best_moves, search
    s = search_spec
    sha256 = None
    if s.leaf == "playout":
        leaf = None
    elif s.leaf == "heuristic":
        def leaf(codes):
            return evaluate_many(game.heuristic, codes)
    else:
        model = _model(game, s.leaf, model)
        sha256 = model.manifest["sha256"]

        def leaf(codes):
            return _win_column(model.predict(codes))

    def choose(codes, counts, next_codes, infos, rand, seconds=None):
        keys = (rand * 2.0 ** 53).astype(np.uint64)
        visits, values = search(game, counts, next_codes, infos, keys, s.sims, leaf,
                                s.seconds if seconds is None else seconds, s.leaves,
                                s.playouts)
        if searched is not None:
            searched(codes, counts, next_codes, infos, visits, values)
        return best_moves(counts, visits, values, by_value=leaf is not None)
    return Player(spec, game, choose, sha256, s.seconds)


def _win_column(values):
    """The winning chance of a network's values (a race network gives more columns)."""
    return values if values.ndim == 1 else values[:, 0]


def _model(game, path, model=None):
    """The network at `path` for `game` (`model`: already opened, if it is that file)."""
    if model is None or model.path != Path(path):
        model = OnnxValueModel(path, game=game.name, pieces=game.pieces, rules=game.rules)
    return model
