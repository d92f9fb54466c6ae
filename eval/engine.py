"""Many games played in lockstep: every step throws for all running games at once,
generates their moves in one compiled call and asks each player for all of its
decisions in one batch (one model call for a network).

Two players sit in slots 0 and 1. Game g draws its throws from stream
throw_stream[g] with the turn number as counter, so two games given the same
stream (a duplicate pair) see the same throws turn by turn. With a table, the
loss of every decision with two or more legal moves is recorded for the slots
in `judged`: the best move's worth minus the chosen move's, from the table.
"""
import time
from dataclasses import dataclass

import numpy as np
from numba import njit, prange

from tabula.games.loop import advance_many, start_positions
from tabula.infra.rng import cumulative, draw_throw, stream_key, uniform


PLAYER_STREAM = 1 << 60   # streams of the players' random numbers


@njit(parallel=True, cache=True)
def throw_and_move(moves, throws, cum_probs, max_moves, codes, keys, turns):
    """Each game's throw (from its stream `keys`, counter `turns`) and its legal moves
    in decision form (eval/search.py)."""
    n = len(codes)
    thrown = np.empty(n, dtype=np.int64)
    counts = np.empty(n, dtype=np.int64)
    next_codes = np.zeros((n, max_moves), dtype=codes.dtype)
    infos = np.zeros((n, max_moves), dtype=np.int64)
    for i in prange(n):
        thrown[i] = draw_throw(throws, cum_probs, keys[i], turns[i])
        counts[i] = moves(codes[i], thrown[i], next_codes[i], infos[i])
    return thrown, counts, next_codes, infos


@njit(parallel=True, cache=True)
def _uniforms(keys, counters):
    out = np.empty(len(keys))
    for i in prange(len(keys)):
        out[i] = uniform(keys[i], counters[i])
    return out


def _work(turns, finished) -> tuple[int, float | None]:
    """Turns played so far, and the estimate of all turns (see `play`)."""
    done = int(turns.sum())
    if not finished.any():
        return done, None
    lengths = turns[finished]
    # a running game is expected to go on for at least the spread of the finished games'
    # lengths: games played in lockstep all outlast the first to finish, so its mean
    # alone would call the work done
    spread = lengths.std() if len(lengths) > 1 else lengths.mean()
    running = turns[~finished]
    return done, float(lengths.sum() + np.maximum(running + spread, lengths.mean()).sum())


def _count_quiet_moves(rule, before, after, over, quiet, active, ended):
    """Count each going game's moves in a row that changed nothing for good, and end
    those that reach the draw rule's count (Game.draw_rule)."""
    for i in np.flatnonzero(~over):
        g = active[i]
        quiet[g] = rule.quiet_after(quiet[g], before[i], after[i])
        ended[g] = quiet[g] >= rule.plies


@dataclass
class Played:
    winners: np.ndarray          # slot (0 or 1) that won each game, -1 where it was drawn
    decisions: np.ndarray        # (games, 2): decisions with >= 2 moves, per slot
    moves_made: np.ndarray       # (games, 2): every move made (one legal move included)
    loss_game: np.ndarray        # per recorded decision: its game
    loss_slot: np.ndarray        # per recorded decision: its slot
    loss: np.ndarray             # per recorded decision: winning chance given away
    seconds: float
    points: np.ndarray           # what each game's winner scored without the cube: 1, or
                                 # 2 for a gammon and 3 for a backgammon (Game.win_size)
    turns: np.ndarray            # turns each game lasted

    def scores(self, slot: int) -> np.ndarray:
        """What `slot` scored in each game: 1 a win, 1/2 a draw (Game.draw_rule), 0 a loss."""
        return np.where(self.winners == slot, 1.0, np.where(self.winners < 0, 0.5, 0.0))

    def game_losses(self, slot: int) -> np.ndarray:
        """Winning chance that `slot` gave away in each game (0 where not judged)."""
        mine = self.loss_slot == slot
        return np.bincount(self.loss_game[mine], weights=self.loss[mine],
                           minlength=len(self.winners))


def play(game, players, first, throw_streams, seed, table=None, judged=(), max_turns=100000,
         progress=None, first_game=0) -> Played:
    """Play len(first) games; first[g] is the slot that throws first in game g, whose
    players draw from stream PLAYER_STREAM + first_game + g (games numbered across the
    blocks of a run, eval/blocks.py).
    After every step progress(turns played, estimated turns in all) is called: the
    estimate takes each running game to last as long as the finished ones did on
    average, or as long as it has lasted plus the spread of their lengths (None
    before any game ends)."""
    started = time.time()
    n = len(first)
    cum_probs = cumulative(game.probs)
    keys = np.array([stream_key(seed, s) for s in throw_streams], dtype=np.uint64)
    player_keys = np.array([stream_key(seed, PLAYER_STREAM + first_game + g)
                            for g in range(n)], dtype=np.uint64)
    codes = start_positions(game, seed, throw_streams)
    if table is not None:   # a table lacking the start (solved with --max-total) says so
        table.values(np.unique(codes))   # here, rather than judging with missing values
    owner = np.asarray(first, dtype=np.int64).copy()
    turns = np.zeros(n, dtype=np.int64)
    winners = np.full(n, -1, dtype=np.int64)
    ended = np.zeros(n, dtype=bool)       # won, or drawn by the game's draw rule
    quiet = np.zeros(n, dtype=np.int64)   # moves in a row that changed nothing for good
    points = np.ones(n, dtype=np.int64)
    decisions = np.zeros((n, 2), dtype=np.int64)
    moves_made = np.zeros((n, 2), dtype=np.int64)
    losses = ([], [], [])
    active = np.arange(n)
    while len(active):
        if turns[active].max() >= max_turns:
            raise RuntimeError(f"a game ran past {max_turns} turns")
        thrown, counts, next_codes, infos = throw_and_move(
            game.moves, game.throws, cum_probs, game.max_moves, codes[active], keys[active],
            turns[active])
        turns[active] += 1
        forfeit = counts == 0
        chosen = np.zeros(len(active), dtype=np.int64)
        rand = _uniforms(player_keys[active], turns[active])
        for slot in (0, 1):
            mine = owner[active] == slot
            moves_made[active[mine & ~forfeit], slot] += 1
            ask = mine & (counts >= 2)
            if not ask.any():
                continue
            chosen[ask] = players[slot].choose(codes[active[ask]], counts[ask],
                                               next_codes[ask], infos[ask], rand[ask])
            decisions[active[ask], slot] += 1
            if table is not None and slot in judged:
                losses[0].append(active[ask])
                losses[1].append(np.full(ask.sum(), slot))
                losses[2].append(table.decision_losses(counts[ask], next_codes[ask],
                                                       infos[ask], chosen[ask]))
        before = codes[active]
        codes[active], passes, over = advance_many(game.mirror, before, counts,
                                                   next_codes, infos, chosen)
        winners[active[over]] = owner[active[over]]
        ended[active[over]] = True
        if game.capabilities.has_gammons:
            points[active[over]] = [game.points_won(after) for after in codes[active[over]]]
        if game.draw_rule is not None:
            _count_quiet_moves(game.draw_rule, before, codes[active], over, quiet, active,
                               ended)
        owner[active[passes]] ^= 1
        active = active[~ended[active]]
        if progress is not None:
            progress(*_work(turns, ended))
    cat = [np.concatenate(x) if x else np.empty(0) for x in losses]
    return Played(winners, decisions, moves_made, cat[0].astype(np.int64),
                  cat[1].astype(np.int64), cat[2], time.time() - started, points, turns)

