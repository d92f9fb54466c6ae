"""The boards as the games draw them, in plain text, for `tabula play`.

A position code is seen by the player about to throw; `first_to_throw` says whether
that player is the one who threw first (Ur's light, Senet's white), so the board
can be drawn with fixed colours.
"""
from . import senet, ur

SIDES = {"ur": ("light", "dark"), "senet": ("white", "black")}
PIECE_MARKS = {"ur": ("L", "D"), "senet": ("W", "B")}


def draw_ur(code: int, pieces: int, first_to_throw: bool) -> str:
    position = ur.to_json(code)
    me_key, opp_key = ("me", "opp") if first_to_throw else ("opp", "me")
    light, dark = set(position[me_key]), set(position[opp_key])
    light_waiting = position[f"{me_key}_waiting"]
    dark_waiting = position[f"{opp_key}_waiting"]
    private = [4, 3, 2, 1, None, None, 14, 13]

    def cell(square, mine, theirs=frozenset(), mark="L", other="D"):
        if square is None:
            return "   "
        if square in mine:
            return f"[{mark}]"
        if square in theirs:
            return f"[{other}]"
        return "[*]" if square in ur.ROSETTES else "[ ]"

    top = "".join(cell(s, dark, mark="D") for s in private)
    middle = "".join(cell(c + 4, light, dark) for c in range(1, 9))
    bottom = "".join(cell(s, light, mark="L") for s in private)
    light_off = pieces - light_waiting - len(light)
    dark_off = pieces - dark_waiting - len(dark)
    return (f"  dark  {top}   waiting {dark_waiting}, borne off {dark_off}\n"
            f"        {middle}   (* rosette: throw again; the middle one is safe)\n"
            f"  light {bottom}   waiting {light_waiting}, borne off {light_off}\n"
            "        squares: 4 3 2 1 . . 14 13 on each side's own row, 5..12 in the middle")


def draw_senet(code: int, pieces: int, first_to_throw: bool) -> str:
    position = senet.to_json(code)
    me, opp = set(position["me"]), set(position["opp"])
    white, black = (me, opp) if first_to_throw else (opp, me)

    def cell(square):
        if square in white:
            return "[ W]"
        if square in black:
            return "[ B]"
        return f"[{square:2d}]"

    rows = [range(1, 11), range(20, 10, -1), range(21, 31)]
    lines = ["  " + "".join(cell(s) for s in row) for row in rows]
    arrows = ["  ->", "  <-", "  ->"]
    board = "\n".join(line + arrow for line, arrow in zip(lines, arrows))
    return (f"{board}\n  borne off: white {pieces - len(white)}, black {pieces - len(black)}"
            "   (15 rebirth, 26 beauty, 27 water, 28-30 final squares)")


def draw(game, code: int, first_to_throw: bool) -> str:
    if game.name == "ur":
        return draw_ur(code, game.pieces, first_to_throw)
    return draw_senet(code, game.pieces, first_to_throw)
