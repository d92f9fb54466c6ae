"""tabula play: play in the terminal against the computer or a friend."""
from tabula.games import GAMES, get_game

from .common import add_game_arguments, game_from_args, load_json, open_table, seed


def add_parser(sub):
    from tabula.session import LEVELS, playable_pieces
    p = sub.add_parser(
        "play", help="play a game in the terminal against the computer or a friend",
        description="The board is drawn as the game draws it, each throw is shown and the "
                    "legal moves are numbered; type a move's number, ? for each move's "
                    "winning chance (from --table or --model), rules for the rules of "
                    "the game, q to quit. Levels: "
                    + "; ".join(f"{k}: {v}" for k, v in LEVELS.items()) + ".")
    add_game_arguments(p, playable_pieces)
    cubed = " and ".join(n for n in sorted(GAMES) if get_game(n).cube is not None)
    p.add_argument("--level", choices=list(LEVELS), default=None,
                   help=f"the computer's strength (default journeyman, or apprentice where "
                        f"no network plays the rule set, as for standard backgammon; "
                        f"{cubed}, played with the doubling cube: master only with --table)")
    p.add_argument("--model", metavar="FILE.onnx",
                   help="the network (default: the variant's shipped network in models/, "
                        "GAMEPIECES.onnx or GAME-RULESPIECES.onnx, e.g. ur-masters7.onnx)")
    p.add_argument("--table", metavar="FILE",
                   help="a solved table: perfect play, exact hints and review")
    p.add_argument("--side", help="your side, by the game's names (" + "; ".join(
                       f"{n}: {' or '.join(get_game(n).presentation.sides)}" for n in sorted(GAMES))
                   + "); default the side that throws first")
    p.add_argument("--hotseat", action="store_true", help="two people, no computer")
    p.add_argument("--setup", metavar="ORDER",
                   help="games whose sides arrange their pieces first (einstein): yours, "
                        "the pieces' numbers on your start squares in order, the corner "
                        "first (312: cube 3 in the corner); default drawn at random. The "
                        "computer's is drawn from the best mixture of set-ups where a table "
                        "is given (tabula value --setups), else at random")
    p.add_argument("--position", metavar="JSON",
                   help="start from this position (as tabula moves reads it; the side "
                        "to move where the game's positions say it, checkers' \"turn\", "
                        "else the side that throws first): a checkers endgame to play out")
    p.add_argument("--seed", type=seed, default=None, help="seed of the throws")
    p.add_argument("--show-rules", action="store_true",
                   help="print the rules of the game (docs/rules/GAME.md) and exit")
    p.set_defaults(run=run)


def run(args):
    from tabula.infra.markdown import to_text
    from tabula.play import Console, play_game
    game = game_from_args(args)
    if args.show_rules:
        print(to_text(game.presentation.rules_text()))
        return 0
    play_game(build_session(args, game), Console())
    return 0


def build_session(args, game):
    """The session of `tabula play`: the variant, table and network (tabula/kit.py), the
    seats, the computer's player, the judge."""
    from tabula.kit import Networks, kit_for
    from tabula.session import start_session
    networks = Networks({game.name: args.model} if args.model else None)
    kit = kit_for(game.name, args.pieces, args.rules, open_table(args), networks, strict=True)
    level = args.level or _default_level(kit)
    position, seat = None, 0
    if args.position not in (None, "start"):
        position, seat = kit.game.start_from(load_json(args.position, "the position"))
    return start_session(kit.game, level, args.side, args.hotseat, args.seed, kit.table,
                         kit.model_path, kit.model, args.setup, position, seat)


def _default_level(kit) -> str:
    """The Journeyman; the Apprentice where nothing else plays the rule set (no network,
    shipped or given, for any pieces, and no table: standard backgammon). Otherwise a
    missing network is said, with the pieces or table that would play."""
    from tabula.session import shipped_pieces
    alone = kit.model_path is None and kit.table is None and \
        not shipped_pieces(kit.game.name, kit.game.rules)
    return "apprentice" if alone else "journeyman"
