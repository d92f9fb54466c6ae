"""What a game is played with, decided once for the terminal (tabula play) and the web
app (tabula serve): the variant, the solved table that plays and judges it, and the
network, each network file opened and checked once.

The variant is the one asked for; with no piece count asked, the rule set's default,
unless only another count has a shipped network (session.playable_pieces). Where a
person names a table or a network for the game (tabula play --table, --model), that
decides the variant, and one that does not fit what was asked is an error; where a
server holds them for many variants, one that does not fit is passed over. The network
is the one given for the game, else (or where it does not fit) the shipped one of the
variant."""
from dataclasses import dataclass
from pathlib import Path

from tabula.games import Game, get_game

from .session import playable_pieces, shipped_model


@dataclass
class Kit:
    game: Game
    table: object = None          # a solution of this variant, or None
    model_path: Path | None = None
    model: object = None          # the network of model_path, opened (OnnxValueModel)


class Networks:
    """The networks games are played with: those given ({game name: path}), else the
    shipped ones; each file opened and checked once."""

    def __init__(self, given: dict | None = None):
        self.given, self.opened = dict(given or {}), {}

    def opened_model(self, path, name: str, pieces=None, rules=None):
        """The network at `path`, opened once, checked to play `name` (and pieces and
        rules where given: ModelError otherwise)."""
        from tabula.runtime.model_file import OnnxValueModel
        if str(path) not in self.opened:
            self.opened[str(path)] = OnnxValueModel(path, game=name)
        model = self.opened[str(path)]
        model.check_plays(name, pieces, rules)
        return model

    def of(self, game: Game, strict: bool = False) -> tuple:
        """(path, opened model) of `game`'s network, or (None, None): the one given for
        the game if it plays the variant, else the shipped one; strict: a network given
        for another variant is an error, not passed over."""
        for path in (self.given.get(game.name), shipped_model(game)):
            if path is None:
                continue
            model = self.opened_model(path, game.name)
            if not model.game.differs_from(game.name, game.pieces, game.rules):
                return path, model
            if strict:
                model.check_plays(game.name, game.pieces, game.rules)
        return None, None


def kit_for(name: str, pieces: int | None, rules: str | None, table=None,
            networks: Networks | None = None, strict: bool = False) -> Kit:
    """The variant asked for, the table if it is of that variant, and its network (see
    the module's docstring); strict: the table and network were named by a person."""
    networks = networks or Networks()
    given = networks.given.get(name)
    if strict and table is not None:
        game = table.game
    elif strict and given and pieces is None:
        game = networks.opened_model(given, name, rules=rules).game
    else:
        game = get_game(name, playable_pieces(name, rules) if pieces is None else pieces,
                        rules)
    if table is not None and table.game.differs_from(game.name, game.pieces, game.rules):
        table = None
    path, model = networks.of(game, strict)
    return Kit(game, table, path, model)
