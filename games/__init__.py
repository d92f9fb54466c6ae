"""Rules of the games tabula solves: the only package that knows them.

A game module offers NAME, DEFAULT_PIECES, MAX_PIECES and make(pieces) -> Game
(games/game.py: the contract). `register` adds one; the built-in games are
registered here, and a test registers a toy game the same way.
"""
import re

from tabula.infra import numba_cache  # noqa: F401 - before any cache index is read
from tabula.infra.errors import TabulaError
from . import backgammon, bearoff, checkers, einstein, senet, ur

from .game import Game, Parameter, PositionError, Race

GAMES = {}
PER_SIDE = "pieces a side"   # what `pieces` counts, unless a module's PIECES_MEAN says


def register(module):
    """Make a game module available to every command and stage by its NAME."""
    for attribute in ("NAME", "RULES", "DEFAULT_PIECES", "MAX_PIECES", "make"):
        if not hasattr(module, attribute):
            raise TypeError(f"game module {module.__name__} lacks {attribute}")
    GAMES[module.NAME] = module


def rule_sets(name: str) -> list[str]:
    """The names of the rule sets game `name` is played under, its default first: a
    module with RULE_SETS (name -> settings) takes them, any other plays RULES alone."""
    module = GAMES[name]
    return [module.RULES, *(r for r in getattr(module, "RULE_SETS", ()) if r != module.RULES)]


def get_game(name: str, pieces: int | None = None, rules: str | None = None) -> Game:
    """The game `name` under rule set `rules` with `pieces` a side (defaults if None)."""
    module = GAMES.get(name)
    if module is None:
        raise PositionError(f"unknown game {name!r}; games are {', '.join(sorted(GAMES))}")
    if pieces is not None and (isinstance(pieces, bool) or not isinstance(pieces, int)):
        raise PositionError(f"pieces must be a whole number, not {pieces!r}")
    if rules is not None:
        parameters(name)[0].check(rules)
    if hasattr(module, "RULE_SETS"):
        return module.make(pieces, module.RULE_SETS[rules or module.RULES])
    return module.make(module.DEFAULT_PIECES if pieces is None else pieces)


def parameters(name: str) -> tuple[Parameter, ...]:
    """The parameters of game `name` (games.game.Parameter): its rule set and its pieces
    a side, with the other names its module's FLAGS give them. (The pieces' default is
    the first rule set's; get_game takes each rule set's own.)"""
    module = GAMES[name]
    flags = getattr(module, "FLAGS", ())

    def names(parameter):
        return tuple(f.name for f in flags if f.parameter == parameter)
    return (Parameter(name, "rules", str, module.RULES, "rule set",
                      choices=tuple(rule_sets(name)), flags=names("rules")),
            Parameter(name, "pieces", int, module.DEFAULT_PIECES,
                      getattr(module, "PIECES_MEAN", PER_SIDE),
                      least=getattr(module, "MIN_PIECES", 1),
                      most=module.MAX_PIECES, flags=names("pieces")))


def pieces_word(name: str) -> str:
    """What game `name` calls its pieces ('checkers', 'cubes'): the first other name its
    FLAGS give them, else 'pieces'."""
    return (parameters(name)[1].flags or ("pieces",))[0]


VARIANT = re.compile(r"([a-z0-9_]+)\(([^()]*)\)")


def parse_variant(text: str) -> Game:
    """The game `text` names as a variant string (games.game.Variant): 'ur',
    'ur(pieces=3)' or 'ur(rules=masters,pieces=7)', the game's defaults where a
    parameter is not named; a PositionError saying what is wrong otherwise."""
    if "(" not in text:
        return get_game(text)
    found = VARIANT.fullmatch(text.replace(" ", ""))
    if found is None:
        raise PositionError(f"a variant is written GAME(rules=NAME,pieces=N), not "
                            f"{text[:60]!r}")
    name = found.group(1)
    get_game(name)   # an unknown game is refused before its parameters are read
    known, settings = {p.name: p for p in parameters(name)}, {}
    for part in filter(None, found.group(2).split(",")):
        key, equals, value = part.partition("=")
        if not equals or key not in known or key in settings:
            raise PositionError(f"a variant's settings are rules=NAME and pieces=N, each "
                                f"once, not {part[:40]!r}")
        settings[key] = known[key].read(value)
    return get_game(name, settings.get("pieces"), settings.get("rules"))


def pieces_help(default_of=None) -> str:
    """'ur 1..7, default 7 (blitz rules: 5); ...' for every registered game.
    default_of(name, rules): the pieces used when none are named, where that is not the
    rule set's own default (tabula play: those of the shipped network)."""
    default_of = default_of or (lambda name, rules: get_game(name, rules=rules).pieces)

    def line(name):
        rules, pieces = parameters(name)
        first, *others = rules.choices
        default = default_of(name, first)
        named = [f"{rules} rules: {pieces}" for rules, pieces in
                 ((rules, default_of(name, rules)) for rules in others) if pieces != default]
        in_all = "" if pieces.help == PER_SIDE else " in all"
        return (f"{name} {pieces.least}..{pieces.most}{in_all}, default {default}"
                + (f" ({', '.join(named)})" if named else ""))
    return "; ".join(line(name) for name in sorted(GAMES))


def game_flags() -> dict:
    """{flag name: Flag} of every registered game's FLAGS (games/game.py: Flag): the other
    names of pieces and rule sets that the commands offer."""
    return {flag.name: flag for module in GAMES.values() for flag in getattr(module, "FLAGS", ())}


def rules_help() -> str:
    """'ur: finkel (default), ...; senet: kendall' for every registered game."""
    return "; ".join(f"{name}: {', '.join(rule_sets(name))}" for name in sorted(GAMES))


register(ur)
register(senet)
register(bearoff)
register(einstein)
register(backgammon)
register(checkers)

__all__ = ["GAMES", "Game", "PositionError", "Race", "game_flags", "game_of", "get_game",
           "parameters", "parse_variant", "pieces_help", "pieces_word", "register", "rule_sets",
           "rules_help"]


def game_of(variant, where: str, error) -> Game:
    """The game a file says it holds (its game, pieces and rules, as read by a schema
    of infra/schemas.py), or `error` naming `where` when no such game exists."""
    try:
        return get_game(variant.game, variant.pieces, variant.rules)
    except TabulaError as err:
        raise error(f"{where}: {err}") from None
