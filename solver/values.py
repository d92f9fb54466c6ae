"""What a solved table says of each position, by name: the outputs a value net learns.

Games solved by value iteration give one value, the mover's winning chance ("win").
Races whose sides never meet (solver/two_sided.py) give the cubeless chances (with
gammons only where one can happen) and the three cubeful equities."""
from .two_sided import CUBEFUL

PROBABILITIES = ("win", "win_gammon", "lose_gammon")


def value_names(game) -> tuple:
    if game.race is None:
        return ("win",)
    gammons = game.pieces >= game.race.gammon_checkers
    return ("win", *(("win_gammon", "lose_gammon") if gammons else ()), *CUBEFUL)


def equity_bound(game) -> float:
    """The most points a game can be worth per unit of cube value (2 with gammons)."""
    return 2.0 if "win_gammon" in value_names(game) else 1.0
