"""GNU Backgammon's position ID: a board as 14 characters, as gnubg shows and reads it.

The ID is the base64 text (no padding) of an 80-bit key: for the side not on roll,
then the side on roll, for each of its points 1..24 and the bar in its own numbering,
as many 1 bits as it has checkers there and then a 0; bits fill each byte from its
lowest, the rest are 0.
"""
import base64

from .game import PositionError

PLACES = 25          # points 1..24 and the bar, as the key lists them
KEY_BYTES = 10


def position_id(on_roll: list, other: list) -> str:
    """The ID of a board: each side's 25 counts (points 1..24, then the bar)."""
    bits = []
    for side in (other, on_roll):
        for count in side:
            bits += [1] * count + [0]
    key = bytearray(KEY_BYTES)
    for i, bit in enumerate(bits):
        key[i // 8] |= bit << (i % 8)
    return base64.b64encode(bytes(key)).decode().rstrip("=")


def board_of_id(text: str) -> tuple[list, list]:
    """(on roll, other): each side's 25 counts of the board an ID writes, else a
    PositionError saying what is wrong."""
    if not isinstance(text, str) or len(text) != 14:
        raise PositionError(f"a gnubg position ID is 14 characters (e.g. 4HPwATDgc/ABMA), "
                            f"not {str(text)[:20]!r}")
    try:
        key = base64.b64decode(text + "==", validate=True)
    except ValueError:
        raise PositionError(f"{text!r} is not a gnubg position ID (base64 characters "
                            "only)") from None
    bits = [(key[i // 8] >> (i % 8)) & 1 for i in range(8 * KEY_BYTES)]
    sides, side, count = [], [], 0
    for bit in bits:
        if len(sides) == 2:
            break
        if bit:
            count += 1
            continue
        side.append(count)
        count = 0
        if len(side) == PLACES:
            sides.append(side)
            side = []
    if len(sides) < 2:
        raise PositionError(f"{text!r} is not a gnubg position ID (its key runs out)")
    other, on_roll = sides
    return on_roll, other
