"""What a solved table says of each position, by name: the outputs a value net learns.

Layered tables give one value, the mover's winning chance ("win"). Races played for
money with the cube (solver/two_sided.py) give the cubeless chances (with gammons only
where one can happen) and the three cubeful equities."""
from .two_sided import CUBEFUL

PROBABILITIES = ("win", "win_gammon", "lose_gammon")


def value_names(game) -> tuple:
    if game.cube is None or game.race is None:   # not a race with the cube
        return ("win",)
    gammons = game.capabilities.has_gammons and game.pieces >= game.race.gammon_checkers
    return (*(PROBABILITIES if gammons else PROBABILITIES[:1]), *CUBEFUL)


def equity_bound(game) -> float:
    """The most points a game can be worth per unit of cube value (2 with gammons)."""
    return 2.0 if "win_gammon" in value_names(game) else 1.0


def value_ranges(game) -> tuple[list, list]:
    """The least and the most each value can be, in value_names order: 0 and 1 for a
    chance, -b and b for an equity (b = equity_bound)."""
    names, bound = value_names(game), equity_bound(game)
    return ([0.0 if n in PROBABILITIES else -bound for n in names],
            [1.0 if n in PROBABILITIES else bound for n in names])
