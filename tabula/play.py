"""`tabula play`: a game in the terminal against the computer, or two people at one
screen, played through tabula/session.py. Input is read line by line, so the game
can be driven from a file too."""
import sys

from .games import pieces_word, rule_sets
from .infra.markdown import to_text
from .session import SessionError


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
    money = ", money play with the doubling cube" if session.cube is not None else ""
    word = pieces_word(game.name)
    word = word[:-1] if game.pieces == 1 else word     # "1 checker", "3 checkers"
    where = "on the board at most" if game.capabilities.pieces_in_all else "a side"
    variant = f"{game.name}{rules} with {game.pieces} {word} {where}{money}"
    if len(session.humans) == 2:
        return (f"{variant}: two people at one screen, "
                f"{game.presentation.sides[0]} against {game.presentation.sides[1]}; {first}.")
    you = game.presentation.sides[min(session.humans)]
    return (f"{variant}: you play {you} against the "
            f"computer at level {session.level} ({session.level_words}); {first}. Type "
            "'rules' for the rules.")


def play_game(session, console: Console) -> int | None:
    """Play one game; returns the winning seat, or None for a draw or when the players
    quit. With the doubling cube, a person who may double is asked before each throw, and
    one facing a double to take or pass."""
    console.say(opening(session))
    while not session.over:
        if session.phase == "take":
            if _answer_double(session, console) is None:
                return None
            continue
        _board(session, console)
        if session.seat not in session.humans:
            _say(console, session.computer_turns())
            continue
        if session.can_double:
            answer = _ask(console, session, f"{session.side(session.seat)}: d to double, r to "
                                            "roll, ? for the cube hint, rules, q to quit: ",
                          ("d", "r"))
            if answer is None:
                return None
            if answer == "d":
                _say(console, session.double())
                continue
        if session.throw is None:   # (a game without dice has its moves at once)
            _say(console, session.roll())   # a throw by its number, as the review names it
        if session.throw is None:
            continue
        choice = _ask_move(session, console) if len(session.moves) > 1 else 0
        if choice is None:
            return None
        _say(console, session.play(choice))
    if session.judge is not None:
        for seat in sorted(session.humans):
            console.say(review_text(session.review(seat)))
    return session.winner


def _answer_double(session, console) -> str | None:
    """A person facing a double takes or passes (None: they quit)."""
    doubler = session.seat
    if doubler not in session.humans:   # the board the computer doubled on
        _board(session, console)
    answer = _ask(console, session, f"{session.side(1 - doubler)}: t to take, p to pass, ? "
                                    "for the hint, q to quit: ", ("t", "p"))
    if answer is not None:
        _say(console, session.answer(answer == "t"))
    return answer


def _board(session, console):
    console.say()
    console.say(session.game.presentation.board(session.code,
                                                first_to_throw=session.seat == 0))
    if session.cube is not None:
        cube = session.cube
        where = "centred" if cube.owner is None else f"owned by {session.side(cube.owner)}"
        console.say(f"  cube at {cube.value}, {where}; {session.side(session.seat)} to roll")


def _say(console, events):
    for event in events:
        number = f"{event['number']}. " if "number" in event else ""
        console.say(f"  {number}{event['text']}")


def review_text(review) -> str:
    digits, unit, decided = review["digits"], review["unit"], review["decisions"]
    if not decided:
        return f"\nHow {review['side']} played: no decision of theirs had a choice."
    lines = [f"\nHow {review['side']} played ({review['source']}): "
             f"{100 * review['accuracy']:.0f}% of {decided} decision{'s' * (decided != 1)} "
             f"with a choice played best; on average {review['mean_loss_points']:.{digits}f} "
             f"{unit} given away a decision, {review['points_given_away']:.{digits}f} in all "
             f"(lost: {review['thresholds_text']}; the throws decide the rest)."]
    for w in review["worst"]:
        throw = f"throw {w['turn']} ({w['throw']})" if w["throw"] is not None else \
            f"move {w['turn']}" if review.get("without_dice") else f"throw {w['turn']} (the cube)"
        lines.append(f"  {throw}: played {w['played']}, better "
                     f"{w['better']}: {w['label']}, {w['loss_points']:.{digits}f}")
    chances = review["chances"]
    if chances:
        lines.append(f"  your winning chance: {100 * chances[0]:.0f}% at the start, lowest "
                     f"{100 * min(chances):.0f}%, highest {100 * max(chances):.0f}%")
    for kind, part in review.get("parts", {}).items():   # with the cube
        what = "checker play" if kind == "checker" else "cube"
        wrong = "not the best" if kind == "checker" else "wrong"
        lines.append(f"  {what}: {part['decisions']} decisions, {part['wrong']} {wrong}, "
                     f"{part['points']:.3f} points given away")
    return "\n".join(lines)


def _hint(session, console):
    try:
        hint = session.hint()
    except SessionError as err:
        console.say(f"  {err}: give --table or --model")
        return
    if "unit" in hint:   # with the cube: equities
        console.say(f"  from best to worst ({hint['source']}; {hint['unit']}):")
        for m in hint["moves"]:
            console.say(f"  {m['index'] + 1}: {m['text']}: {m['equity']:+.4f}, "
                        f"{m['loss']:.4f} less than the best")
        return
    console.say(f"  moves from best to worst ({hint['source']}):")
    for m in hint["moves"]:
        if "said" in m:   # a win/loss/draw table: the result and the plies to the end
            console.say(f"  {m['index'] + 1}: {m['text']}: {m['said']}")
            continue
        console.say(f"  {m['index'] + 1}: {m['text']}: you win with "
                    f"{100 * m['chance']:.2f}%, loses {m['loss_points']:.2f} points")


def _rules(session, console):
    console.say(to_text(session.game.presentation.rules_text()))


def _ask(console, session, prompt, choices):
    return console.choose(
        prompt, lambda answer: answer if answer in choices else None,
        {"rules": lambda: _rules(session, console), "?": lambda: _hint(session, console)},
        f"is not an answer here: type one of {', '.join(choices)}")


def _ask_move(session, console):
    moves = session.moves
    for j, m in enumerate(moves, 1):
        console.say(f"  {j}: {m['text']}")
    return console.choose_move(
        f"your move (1-{len(moves)}, ? for a hint, rules, q to quit): ", len(moves),
        {"?": lambda: _hint(session, console), "rules": lambda: _rules(session, console)})
