"""What a solved table says of each position, by name: the outputs a value net learns.

Layered tables give one value, the mover's winning chance ("win"). Races played for
money with the cube (solver/two_sided.py) give the cubeless chances (with gammons only
where one can happen) and the three cubeful equities; games with contact
(solver/contact.py) the chances of gammons and backgammons and four cubeful equities."""
from .contact import VALUES as CONTACT_VALUES
from .race_table import equity_bound_of, race_value_names, value_bounds
from .solution import CONTACT, RACE, kind_of_game


def value_names(game) -> tuple:
    """The values a solution of `game` gives each position, in order."""
    kind = kind_of_game(game)
    if game.cube is not None and kind is RACE:   # a race with the cube
        return race_value_names(game)
    if kind is CONTACT:
        return CONTACT_VALUES
    return ("win",)


def equity_bound(game) -> float:
    """The most points a game can be worth per unit of cube value (2 with gammons)."""
    return equity_bound_of(value_names(game))


def value_ranges(game) -> tuple[list, list]:
    """The least and the most each value can be, in value_names order (race_table.
    value_bounds: 0 and 1 for a chance, -b and b for an equity)."""
    return value_bounds(value_names(game))
