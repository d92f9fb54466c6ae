"""Run by GNU Backgammon's own Python (`gnubg -t -q -p eval/gnubg_server.py`, Debian's
gnubg), not by tabula: answers requests for money play with the cube, one JSON line in,
one JSON line out (eval/gnubg_money.py drives it). gnubg's own printing goes to
/dev/null; the replies go to the standard output it was started with, after the line
READY.

A request: {"op": "cube", "chances" or "move", "board": gnubg's two sides (the
opponent's, then the side on roll's: 25 counts, the bar last), "owner": -1 (centred),
0 (the side on roll) or 1, "plies": N, and for "move" "dice": [d1, d2]}. A reply:
"cube" gives cfevaluate's (optimal, no double, double take, double pass) equities for
the side on roll, in units of the cube's value; "chances" evaluate's five cubeless
chances; "move" findbestmove's (from, to) pairs, 0 for off, by cubeful evaluation in
that cube state; a failed request gives {"error": text}. Money play: no Jacoby rule,
no beavers.
"""
import json
import os

import gnubg

READY = "@ready"


def main():
    replies = os.fdopen(os.dup(1), "w")
    os.dup2(os.open(os.devnull, os.O_WRONLY), 1)
    requests = os.fdopen(0, "r")
    for command in ("set jacoby off", "set beavers 0", "set player 0 human",
                    "set player 1 human", "new session"):
        gnubg.command(command)
    replies.write(READY + "\n")
    replies.flush()
    for line in requests:
        try:
            reply = answer(json.loads(line))
        except Exception as error:   # the asker hears of any failure, and this goes on
            reply = {"error": f"{type(error).__name__}: {error}"}
        replies.write(json.dumps(reply) + "\n")
        replies.flush()


def answer(request):
    board = request["board"]
    cube = gnubg.cubeinfo(1, request["owner"], 0, 0, (0, 0), 0, 0)
    context = gnubg.evalcontext(1, request["plies"], 1, 0, 0.0)   # cubeful, deterministic
    if request["op"] == "cube":
        return list(gnubg.cfevaluate(board, cube, context)[:4])
    if request["op"] == "chances":
        cubeless = gnubg.evalcontext(0, request["plies"], 1, 0, 0.0)
        return list(gnubg.evaluate(board, cube, cubeless)[:5])
    position = gnubg.posinfo(0, 0, 0, 1, tuple(request["dice"]))   # the dice to move
    gnubg.command("set gnubgid " + gnubg.gnubgid(board, cube, position))
    return list(gnubg.findbestmove(board, cube, context))


if __name__ == "__main__":
    main()
