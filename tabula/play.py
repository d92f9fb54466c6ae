"""`tabula play`: a game in the terminal against the computer, or two people at one
screen, played through tabula/session.py. Input is read line by line, so the game
can be driven from a file too."""
import sys

from .games import rule_sets
from .infra.markdown import to_text
from .session import LEVELS, SessionError


class Console:
    def __init__(self, inp=None, out=None):
        self.inp, self.out = inp or sys.stdin, out or sys.stdout

    def say(self, text=""):
        print(text, file=self.out, flush=True)

    def ask(self, prompt) -> str | None:
        print(prompt, end="", file=self.out, flush=True)
        line = self.inp.readline()
        return None if line == "" else line.strip().lower()

    def choose(self, prompt, accept, commands: dict, mend: str):
        """What accept(answer) makes of the person's answer; None when they quit. An
        answer in `commands` runs it (a hint, the rules) and asks again; one that
        accept refuses (None) gets `mend` and asks again."""
        while True:
            answer = self.ask(prompt)
            if answer is None or answer in ("q", "quit"):
                self.say("bye")
                return None
            if answer in commands:
                commands[answer]()
                continue
            chosen = accept(answer)
            if chosen is not None:
                return chosen
            self.say(f"  '{answer[:40]}' {mend}")

    def choose_move(self, prompt, count: int, commands: dict) -> int | None:
        """A move number 1..count typed by the person, as an index (see choose)."""
        def accept(answer):
            if answer.isascii() and answer.isdigit() and len(answer) < 6 and \
                    1 <= int(answer) <= count:
                return int(answer) - 1
            return None
        return self.choose(prompt, accept, commands,
                           f"is not a move number: type a number from 1 to {count}")


def opening(session) -> str:
    game = session.game
    first = f"{game.presentation.sides[0]} throws first"
    rules = "" if game.rules == rule_sets(game.name)[0] else f" ({game.rules} rules)"
    variant = f"{game.name}{rules} with {game.pieces} pieces a side"
    if len(session.humans) == 2:
        return (f"{variant}: two people at one screen, "
                f"{game.presentation.sides[0]} against {game.presentation.sides[1]}; {first}.")
    you = game.presentation.sides[min(session.humans)]
    return (f"{variant}: you play {you} against the "
            f"computer at level {session.level} ({LEVELS[session.level]}); {first}. Type "
            "'rules' for the rules.")


def play_game(session, console: Console) -> int | None:
    """Play one game; returns the winning seat, or None when the players quit."""
    game = session.game
    console.say(opening(session))
    while not session.over:
        console.say()
        console.say(game.presentation.board(session.code, first_to_throw=session.seat == 0))
        for event in session.roll():   # a throw by its number, as the review names it
            number = f"{event['number']}. " if "number" in event else ""
            console.say(f"  {number}{event['text']}")
        if session.throw is None:
            continue
        if session.seat in session.humans and len(session.moves) > 1:
            choice = _ask_move(session, console)
            if choice is None:
                return None
        else:
            choice = session.computer_choice() if session.seat not in session.humans else 0
        for event in session.play(choice):
            console.say(f"  {event['text']}")
    if session.judge is not None:
        for seat in sorted(session.humans):
            console.say(review_text(session.review(seat)))
    return session.winner


def review_text(review) -> str:
    digits, unit = review["digits"], review["unit"]
    lines = [f"\nHow {review['side']} played ({review['source']}): "
             f"{100 * review['accuracy']:.0f}% of {review['decisions']} decisions with a "
             f"choice played best; on average {review['mean_loss_points']:.{digits}f} {unit} "
             f"given away a decision, {review['points_given_away']:.{digits}f} in all "
             f"(lost: {review['thresholds_text']}; the throws decide the rest)."]
    for w in review["worst"]:
        throw = f" ({w['throw']})" if w["throw"] is not None else " (the cube)"
        lines.append(f"  throw {w['turn']}{throw}: played {w['played']}, better "
                     f"{w['better']}: {w['label']}, {w['loss_points']:.{digits}f}")
    chances = review["chances"]
    if chances:
        lines.append(f"  your winning chance: {100 * chances[0]:.0f}% at the start, lowest "
                     f"{100 * min(chances):.0f}%, highest {100 * max(chances):.0f}%")
    return "\n".join(lines)


def _ask_move(session, console):
    moves = session.moves
    for j, m in enumerate(moves, 1):
        console.say(f"  {j}: {m['text']}")

    def hint():
        try:
            hint = session.hint()
        except SessionError as err:
            console.say(f"  {err}: give --table or --model")
            return
        console.say(f"  moves from best to worst ({hint['source']}):")
        for m in hint["moves"]:
            console.say(f"  {m['index'] + 1}: {m['text']}: you win with "
                        f"{100 * m['chance']:.2f}%, loses {m['loss_points']:.2f} points")

    return console.choose_move(
        f"your move (1-{len(moves)}, ? for a hint, rules, q to quit): ", len(moves),
        {"?": hint, "rules": lambda: console.say(to_text(session.game.presentation.rules_text()))})
