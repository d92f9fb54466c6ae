"""tabula play: play in the terminal against the computer or a friend."""
import numpy as np

from games import GAMES, get_game

from .common import UsageError, add_game_arguments, game_from_args, open_table


def add_parser(sub):
    from tabula.play import LEVELS
    p = sub.add_parser(
        "play", help="play a game in the terminal against the computer or a friend",
        description="The board is drawn as the game draws it, each throw is shown and the "
                    "legal moves are numbered; type a move's number, ? for each move's "
                    "winning chance (from --table or --model), rules for the rules of "
                    "the game, q to quit. Levels: "
                    + "; ".join(f"{k}: {v}" for k, v in LEVELS.items()) + ".")
    add_game_arguments(p)
    p.add_argument("--level", choices=list(LEVELS), default="journeyman",
                   help="the computer's strength (default journeyman)")
    p.add_argument("--model", metavar="FILE.onnx",
                   help="the network (default: the shipped models/GAMEPIECES.onnx)")
    p.add_argument("--table", metavar="FILE", help="a solved table: perfect play and hints")
    p.add_argument("--side", help="your side, by the game's names (" + "; ".join(
                       f"{n}: {' or '.join(get_game(n).sides)}" for n in sorted(GAMES))
                   + "); default the side that throws first")
    p.add_argument("--hotseat", action="store_true", help="two people, no computer")
    p.add_argument("--seed", type=int, default=None, help="seed of the throws")
    p.add_argument("--rules", action="store_true",
                   help="print the rules of the game (docs/rules/GAME.md) and exit")
    p.set_defaults(run=run)


def run(args):
    from eval.players import make_player
    from eval.search import move_worths
    from solver.bellman import table_move_worths
    from tabula.play import Console, decision_arrays, default_model, play_game
    game = game_from_args(args)
    if args.rules:
        print(game.rules_text())
        return 0
    table = open_table(args)
    sides = game.sides
    side = args.side or sides[0]
    if side not in sides:
        raise UsageError(f"--side for {game.name} is {sides[0]} or {sides[1]}, not {side!r}")
    model_path = args.model or default_model(game)
    model = None
    if model_path:
        from export.model_file import OnnxValueModel
        model = OnnxValueModel(model_path, game=game.name, pieces=game.pieces)
    computer = None
    if not args.hotseat:
        if args.level == "apprentice":
            computer = make_player("heuristic", game)
        elif args.level == "master" and table is not None:
            computer = make_player("perfect", game, table)
        elif model is None:
            raise UsageError(f"level {args.level} needs a network: give --model FILE.onnx "
                             f"(or --table for master, or --level apprentice)")
        else:
            kind = "net+search" if args.level == "master" else "net"
            computer = make_player(f"{kind}:{model_path}", game)

    def hint(moves):
        counts, next_codes, infos = decision_arrays(game, moves)
        if table is not None:
            return table_move_worths(table, next_codes[0, :len(moves)], infos[0, :len(moves)])
        if model is not None:
            live = np.arange(game.max_moves) < counts[:, None]
            return move_worths(next_codes, infos, live, model.predict)[0, :len(moves)]
        return None

    humans = {0, 1} if args.hotseat else {sides.index(side)}
    play_game(game, humans, computer, hint, args.seed, Console())
    return 0
