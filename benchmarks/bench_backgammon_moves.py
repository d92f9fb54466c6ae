"""Backgammon's plays: equal to GNU Backgammon's, and how fast, beside OpenSpiel's.

    python benchmarks/bench_backgammon_moves.py [--positions 20000] [--speed 2000]

Agreement: for hypergammon with 1, 2 and 3 checkers and the standard game, --positions
positions (half drawn uniformly, half met in random play: tests/gnubg_bridge.py), every
one of the 21 rolls: tabula's distinct resulting positions against gnubg's list
(gnubg's Python module; a play it cuts at a checker borne off must have a completion
among ours). The table counts the positions and rolls compared, and those with hits,
bar entries and bear-offs among their plays.

Speed: on --speed positions met in random play in OpenSpiel (PyPI open-spiel:
pyspiel.load_game("backgammon"), hyper_backgammon=True for 3 checkers), every roll's
plays, side by side in one run: tabula's compiled generator over the batch of boards
(one core), the same through the game's contract (codes in, each play's code out: what
self-play, search and the engine call), and OpenSpiel's C++ legal_actions called from
Python for each roll (a state cloned and the roll applied, a double's two halves both
generated; its count of actions is its own: plays that reach the same position in
different ways are different actions there).
Where the dice differ, OpenSpiel's distinct resulting positions equal tabula's plays.
"""
import argparse
import re
import sys
import time
from pathlib import Path

import numpy as np
from numba import njit

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from benchmarks.common import report, run_script  # noqa: E402
from tabula.games import get_game  # noqa: E402
from tabula.infra.errors import TabulaError  # noqa: E402
from tabula.games.backgammon_rules import BOARD, MAX_BOARDS, plays  # noqa: E402
from tests.gnubg_bridge import (ROLLS, agrees_with_gnubg, sample_states,  # noqa: E402
                                tabula_plays)


def agreement(checkers: int, n: int, seed: int) -> dict:
    states = sample_states(checkers, n, seed)
    differ = hits = entries = bear_offs = 0
    for me, opp in states:
        entries += me[25] > 0
        bear_offs += me[0] > 0
        for high, low in ROLLS:
            differ += agrees_with_gnubg(me, opp, high, low) is not None
            hits += any(after[1][25] > opp[25] for after in tabula_plays(me, opp, high, low))
    return {"rule set": "standard" if checkers == 15 else f"hyper {checkers}",
            "positions": len(states), "rolls": len(states) * len(ROLLS),
            "differ": differ, "rolls_with_hits": hits, "bar_entries": int(entries),
            "bearing_off": int(bear_offs)}


def openspiel_states(checkers: int, n: int, seed: int):
    """n states of OpenSpiel games played at random, each before a roll, with the board
    as tabula's (mover's 26 counts, then the opponent's)."""
    import pyspiel
    game = pyspiel.load_game("backgammon", {"hyper_backgammon": checkers == 3})
    rng = np.random.default_rng(seed)
    found = []
    state = game.new_initial_state()
    while len(found) < n:
        if state.is_terminal():
            state = game.new_initial_state()
        if state.is_chance_node():
            if state.move_number() > 0:
                found.append(state.clone())
            outcomes = state.chance_outcomes()
            state.apply_action(outcomes[rng.integers(len(outcomes))][0])
        else:
            actions = state.legal_actions()
            state.apply_action(actions[rng.integers(len(actions))])
    return found


def board_of_openspiel(state) -> np.ndarray:
    """Tabula's board of an OpenSpiel state before a roll: the player to move next is
    the one who did not move last (x counts its points from position 0, o from 23)."""
    text = state.to_string()
    bar = re.search(r"Bar:[ ]*([xo]*)", text).group(1)
    scores = re.search(r"Scores, X: (\d+), O: (\d+)", text)
    mover = _mover(state)
    sides = []
    for player in (mover, 1 - mover):
        side = [0] * 26
        for position in range(24):
            count = state.board(player, position)
            side[24 - position if player == 0 else position + 1] += count
        side[25] = bar.count("xo"[player])
        side[0] = int(scores.group(1 + player))
        sides.append(side)
    return np.array(sides[0] + sides[1], dtype=np.int8)


def _mover(state) -> int:
    after = state.clone()
    after.apply_action(after.chance_outcomes()[0][0])
    return after.current_player()


@njit(cache=True)
def tabula_all_rolls(boards):
    out = np.empty((MAX_BOARDS, BOARD), dtype=np.int8)
    room = np.empty((3, MAX_BOARDS, BOARD), dtype=np.int8)
    keys = np.empty((4, MAX_BOARDS), dtype=np.int64)
    total = 0
    for i in range(len(boards)):
        for high in range(1, 7):
            for low in range(1, high + 1):
                total += plays(boards[i], high, low, out, room, keys)
    return total


@njit(cache=True)
def game_all_rolls(moves, codes, throws, out_codes):
    """The same through the game's contract: each position's code decoded, its plays
    found and each result encoded as the next player's code (Game.moves)."""
    out_info = np.empty(len(out_codes), dtype=np.int64)
    total = 0
    for i in range(len(codes)):
        for throw in throws:
            total += moves(codes[i], throw, out_codes, out_info)
    return total


def game_codes(checkers: int, boards):
    """The game of the contract with this many checkers, and the codes of `boards`."""
    from tabula.games.backgammon import json_of_board
    game = get_game("backgammon", rules="standard") if checkers == 15 else \
        get_game("backgammon", checkers)
    return game, game.codes([game.position_from_json(json_of_board(b)) for b in boards])


def openspiel_all_rolls(states) -> int:
    """OpenSpiel's actions of every roll of each state; a double is played there as two
    actions of two checkers each, so each first half's second halves are generated too."""
    total = 0
    for state in states:
        for outcome, chance in state.chance_outcomes():
            rolled = state.clone()
            rolled.apply_action(outcome)
            actions = rolled.legal_actions()
            if chance > 1.5 / 36:                     # two different dice: one action
                total += len(actions)
                continue
            for action in actions:
                half = rolled.clone()
                half.apply_action(action)
                second = (not half.is_terminal() and not half.is_chance_node()
                          and half.current_player() == rolled.current_player())
                total += len(half.legal_actions()) if second else 1
    return total


def speed(checkers: int, n: int, seed: int) -> dict:
    states = openspiel_states(checkers, n, seed)
    boards = np.stack([board_of_openspiel(s) for s in states])
    tabula_all_rolls(boards[:2])                        # compile
    t0 = time.perf_counter()
    ours = tabula_all_rolls(boards)
    ours_s = time.perf_counter() - t0
    game, codes = game_codes(checkers, boards)
    room = np.empty(game.max_moves, dtype=game.code_dtype)
    game_all_rolls(game.moves, codes[:2], game.throws, room)       # compile
    t0 = time.perf_counter()
    through_codes = game_all_rolls(game.moves, codes, game.throws, room)
    codes_s = time.perf_counter() - t0
    if through_codes != ours:
        raise TabulaError(f"the game's moves gave {through_codes} plays, the board rules {ours}")
    t0 = time.perf_counter()
    theirs = openspiel_all_rolls(states)
    theirs_s = time.perf_counter() - t0
    return {"rule set": "standard" if checkers == 15 else "hyper 3", "positions": n,
            "tabula_positions_per_s": round(n / ours_s), "tabula_plays": int(ours),
            "tabula_codes_positions_per_s": round(n / codes_s),
            "openspiel_positions_per_s": round(n / theirs_s), "openspiel_actions": theirs,
            "ratio": round(theirs_s / ours_s, 1)}


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--positions", type=int, default=20_000)
    parser.add_argument("--speed", type=int, default=2_000)
    args = parser.parse_args()
    if args.positions < 2 or args.speed < 2:
        raise TabulaError("--positions and --speed must be at least 2")
    rows = [agreement(checkers, args.positions, 100 + checkers) for checkers in (1, 2, 3, 15)]
    report("backgammon_moves_gnubg", rows)
    report("backgammon_moves_speed", [speed(c, args.speed, 7) for c in (3, 15)])


if __name__ == "__main__":
    run_script(main)
