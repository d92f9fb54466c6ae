"""`tabula play` for races with the doubling cube (bear-offs): a money game in the
terminal through tabula/cube_session.py, against the computer or between two people.
The cube is offered before each roll of a person who may double; moves in backgammon
notation (6/2 5/off), pip counts on the board; hints and the review at the end from
the table's equities when a table is given, else from the network's."""
from tabula.infra.markdown import to_text

from .cube_session import CubeSession
from .play import Console, review_text


def play_cube_game(session: CubeSession, console: Console):
    """Play one game; returns (winning seat, points), or None when the players quit."""
    game, names = session.game, session.game.presentation.sides
    who = "two people at one screen" if session.level is None else \
        f"you play {names[min(session.humans)]} against the computer ({session.level})"
    console.say(f"{game.name} with up to {game.pieces} checkers a side, money play with the "
                f"doubling cube: {who}; {names[0]} rolls first. Type 'rules' for the rules.")
    while not session.over:
        _say(console, session.computer_turns())
        if session.over:
            break
        if session.phase == "take":
            if session.seat not in session.humans:   # the board the computer doubled on
                _board(console, session)
            answer = _ask(console, session, f"{names[1 - session.seat]}: t to take, p to "
                                            "pass, ? for the hint, q to quit: ", ("t", "p"))
            if answer is None:
                return None
            _say(console, session.answer(answer == "t"))
            continue
        _board(console, session)
        if session.can_double:
            answer = _ask(console, session, f"{names[session.seat]}: d to double, r to roll, "
                                            "? for the cube hint, rules, q to quit: ",
                          ("d", "r"))
            if answer is None:
                return None
            if answer == "d":
                _say(console, session.double())
                continue
        _say(console, session.roll())
        if session.throw is None:
            continue
        choice = _ask_move(console, session) if len(session.moves) > 1 else 0
        if choice is None:
            return None
        _say(console, session.play(choice))
    if session.judge is not None:
        for seat in sorted(session.humans):
            console.say(_review(session.review(seat)))
    return session.winner, session.points


def _say(console, events):
    for event in events:
        number = f"{event['number']}. " if "number" in event else ""
        console.say(f"  {number}{event['text']}")


def _board(console, session):
    console.say()
    console.say(session.game.presentation.board(session.code,
                                                first_to_throw=session.seat == 0))
    where = "centred" if session.owner is None else \
        f"owned by {session.side(session.owner)}"
    console.say(f"  cube at {session.cube}, {where}; {session.side(session.seat)} to roll")


def _review(review) -> str:
    parts = review["parts"]
    return review_text(review) + (
        f"\n  checker play: {parts['checker']['decisions']} decisions, "
        f"{parts['checker']['wrong']} not the best, {parts['checker']['points']:.3f} points "
        f"given away\n  cube: {parts['cube']['decisions']} decisions, {parts['cube']['wrong']} "
        f"wrong, {parts['cube']['points']:.3f} points given away")


def _hint(console, session):
    hint = session.hint()
    console.say(f"  from best to worst ({hint['source']}; {hint['unit']}):")
    for m in hint["moves"]:
        console.say(f"  {m['index'] + 1}: {m['text']}: {m['equity']:+.4f}, "
                    f"{m['loss']:.4f} less than the best")


def _ask(console, session, prompt, choices):
    return console.choose(
        prompt, lambda answer: answer if answer in choices else None,
        {"rules": lambda: console.say(to_text(session.game.presentation.rules_text())),
         "?": lambda: _hint(console, session) if session.judge else
            console.say("  no table or network to judge with")},
        f"is not an answer here: type one of {', '.join(choices)}")


def _ask_move(console, session):
    for j, m in enumerate(session.moves, 1):
        console.say(f"  {j}: {m['text']}")
    return console.choose_move(f"your move (1-{len(session.moves)}, ? for a hint, q to quit): ",
                               len(session.moves), {"?": lambda: _hint(console, session)})
