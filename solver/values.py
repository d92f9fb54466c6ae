"""What a solved table says of each position, by name: the outputs a value net learns.

Layered tables give one value, the mover's winning chance ("win"). Races played for
money with the cube (solver/two_sided.py) give the cubeless chances (with gammons only
where one can happen) and the three cubeful equities."""
from .race_table import PROBABILITIES, race_value_names
from .solution import RACE, kind_of_game


def value_names(game) -> tuple:
    """The values a solution of `game` gives each position, in order."""
    if game.cube is not None and kind_of_game(game) is RACE:   # a race with the cube
        return race_value_names(game)
    return ("win",)


def equity_bound(game) -> float:
    """The most points a game can be worth per unit of cube value (2 with gammons)."""
    return 2.0 if "win_gammon" in value_names(game) else 1.0


def value_ranges(game) -> tuple[list, list]:
    """The least and the most each value can be, in value_names order: 0 and 1 for a
    chance, -b and b for an equity (b = equity_bound)."""
    names, bound = value_names(game), equity_bound(game)
    return ([0.0 if n in PROBABILITIES else -bound for n in names],
            [1.0 if n in PROBABILITIES else bound for n in names])
