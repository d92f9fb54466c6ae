"""`tabula play`: a game in the terminal against the computer, or two people at one
screen. Input is read line by line, so the game can be driven from a file too."""
import sys
from pathlib import Path

import numpy as np

from games.loop import advance

LEVELS = {"apprentice": "the hand-made heuristic",
          "journeyman": "the network",
          "master": "the table's perfect play (with --table), else the network with search"}
MODELS = Path(__file__).resolve().parent.parent / "models"


def decision_arrays(game, moves):
    """One decision in the players' decision form."""
    next_codes = np.zeros((1, game.max_moves), dtype=np.int64)
    infos = np.zeros((1, game.max_moves), dtype=np.int64)
    for j, m in enumerate(moves):
        next_codes[0, j], infos[0, j] = m["position"], m["info"]
    return np.array([len(moves)]), next_codes, infos


def describe(game, move) -> str:
    text = f"{game.square_label(move['from'])} -> {game.square_label(move['to'])}"
    if move["over"]:
        text += " (wins)"
    elif move["again"]:
        text += " (throw again)"
    return text


class Console:
    def __init__(self, inp=None, out=None):
        self.inp, self.out = inp or sys.stdin, out or sys.stdout

    def say(self, text=""):
        print(text, file=self.out, flush=True)

    def ask(self, prompt) -> str | None:
        print(prompt, end="", file=self.out, flush=True)
        line = self.inp.readline()
        return None if line == "" else line.strip().lower()


def play_game(game, humans, computer, hint, seed, console: Console):
    """Play one game; humans: the set of seats (0 throws first, 1 second) typed by
    people; computer: the player of the other seat; hint(moves) -> winning chances or
    None. Returns the winning seat, or None when the players quit."""
    rng = np.random.default_rng(seed)
    names = game.sides
    code, seat = game.start, 0
    while True:
        console.say()
        console.say(game.board(code, first_to_throw=seat == 0))
        throw = int(rng.choice(game.throws, p=game.probs))
        moves = game.legal_moves(code, throw)
        console.say(f"{names[seat]} throws {throw}")
        choice = 0
        if not moves:
            console.say("  no legal move: the turn passes")
        elif seat in humans and len(moves) > 1:
            choice = _ask_move(game, moves, hint, console)
            if choice is None:
                return None
        else:
            choice = 0 if len(moves) == 1 else int(computer.choose(
                np.array([code]), *decision_arrays(game, moves), np.array([rng.random()]))[0])
            who = "only move" if len(moves) == 1 else "plays"
            console.say(f"  {names[seat]} {who}: {describe(game, moves[choice])}")
        _, next_codes, infos = decision_arrays(game, moves)
        code, passes, over = advance(game.mirror, code, len(moves), next_codes[0], infos[0],
                                     choice)
        if over:
            console.say(f"\n{names[seat]} wins.")
            return seat
        if passes:
            seat = 1 - seat


def _ask_move(game, moves, hint, console):
    for j, m in enumerate(moves, 1):
        console.say(f"  {j}: {describe(game, m)}")
    while True:
        answer = console.ask(f"your move (1-{len(moves)}, ? for winning chances, "
                             "rules, q to quit): ")
        if answer is None or answer in ("q", "quit"):
            console.say("bye")
            return None
        if answer == "rules":
            console.say(game.rules_text())
            continue
        if answer == "?":
            chances = hint(moves)
            if chances is None:
                console.say("  no table or model to judge moves: give --table or --model")
            else:
                for j, (m, p) in enumerate(zip(moves, chances), 1):
                    console.say(f"  {j}: {describe(game, m)}: you win with {100 * p:.2f}%")
            continue
        if answer.isdigit() and 1 <= int(answer) <= len(moves):
            return int(answer) - 1
        console.say(f"  '{answer}' is not a move number: type a number from 1 to {len(moves)}")


def default_model(game) -> Path | None:
    path = MODELS / f"{game.name}{game.pieces}.onnx"
    return path if path.is_file() else None
