"""Whole numbers typed by people (on the command line, in a player's spec, at the
terminal's prompt), read by one rule: ASCII digits only, so that '²' or '٣', which
str.isdigit accepts and int refuses or reads otherwise, are refused like any word,
and no longer than the largest number allowed, so that a thousand digits cost
nothing."""
import re

DIGITS = re.compile(r"-?[0-9]+")


def whole_number(text: str, least: int, most: int) -> int | None:
    """`text` as a whole number from least to most, or None when it is not one."""
    if not isinstance(text, str) or len(text) > len(str(most)) + 1 or \
            not DIGITS.fullmatch(text):
        return None
    value = int(text)
    return value if least <= value <= most else None
