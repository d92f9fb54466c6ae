"""What the bear-off tables save a standard-backgammon network (issue 62): the
decisions met where both sides bear off, in a match of the network against itself
(each once),
each move valued by the bear-off tables (solver/bear_offs.py: what gnubg's databases
hold); each player's mEMG a decision there, with its interval, and the network's error
in cubeless equity on those positions.

    python benchmarks/bench_bear_offs.py --model MODEL.onnx [--pairs 200] [--seed 1]

Players: the network alone (net:MODEL as it was before the tables), the network with
the tables (net:MODEL now: there it plays the tables' best cubeless move), and gnubg:0
if GNU Backgammon's module is installed.
"""
import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from benchmarks.common import report, run_script  # noqa: E402
from tabula.infra.errors import TabulaError  # noqa: E402


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", required=True, help="a standard-backgammon network")
    parser.add_argument("--pairs", type=int, default=200)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    if args.pairs < 1:
        raise TabulaError("--pairs takes a whole number >= 1")
    import numpy as np
    from tabula.eval import referee
    from tabula.eval.equities import Equities, cubeless_chooser
    from tabula.eval.players import Player, make_player
    from tabula.games import get_game
    from tabula.runtime.model_file import OnnxValueModel
    from tabula.solver.bear_offs import bear_off_values
    from tabula.solver.contact import cubeless_equity
    game = get_game("backgammon", rules="standard")
    started = time.time()
    net = make_player(f"net:{args.model}", game)
    met = referee.met_in_play(net, args.pairs, args.seed, 1)
    home, _ = game.bear_offs.home_sides(met.codes)
    # each decision once: a pair of one player's games meets its decisions twice
    _, first = np.unique(np.stack([met.codes, met.next_codes[:, 0]]), axis=1,
                         return_index=True)
    keep = np.sort(first[home[first]])
    decisions = referee.Decisions(met.codes[keep], met.counts[keep], met.next_codes[keep],
                                  met.infos[keep])
    tables = bear_off_values(game.bear_offs, game.pieces)

    def by_tables(codes):
        return cubeless_equity(*tables.chances(game.bear_offs.home_sides(codes)[1]).T)
    equities = referee.move_equities(game, decisions, by_tables)
    model = OnnxValueModel(args.model, game.name, game.pieces, rules=game.rules)

    def alone(codes):
        return Equities(model.predict(codes), model.value_names).cubeless()
    players = [Player("the network alone", game, cubeless_chooser(game, alone)), net]
    try:
        players.append(make_player("gnubg:0", game))
    except TabulaError:
        pass
    rows = []
    for player in players:
        rate = referee.error_rate(decisions, equities, player)
        low, high = rate["memg_ci95"]
        rows.append({"player": player.spec, "mEMG a decision": round(rate["memg_a_decision"], 3),
                     "ci95": f"{low:.3f} .. {high:.3f}",
                     "share with a loss": round(rate["share_with_loss"], 4),
                     "decisions": rate["decisions"], "seconds": round(time.time() - started)})
    positions = np.unique(decisions.codes)
    error = np.abs(alone(positions) - by_tables(positions))
    report("bear_offs", rows, {"model": args.model, "seed": args.seed, "pairs": args.pairs,
                               "positions": len(positions),
                               "network_cubeless_error_mean": float(error.mean()),
                               "network_cubeless_error_max": float(error.max())})
    print(f"the network's cubeless equity on those {len(positions):,} positions: "
          f"{error.mean():.4f} from the tables' on average, {error.max():.4f} at most")


if __name__ == "__main__":
    run_script(main)
