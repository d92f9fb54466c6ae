"""A standard-backgammon network against GNU Backgammon (issue 62): matches in points a
game, and error rates judged by gnubg at 2 plies, checker play and cube apart.

    python benchmarks/bench_backgammon_gnubg.py --model MODEL.onnx [--search] [--cube]
        [--pairs 1000] [--opponents heuristic gnubg:0] [--judged-pairs 40 --every 3]
        [--judge-players net gnubg:0 heuristic] [--plies 2]

Matches: `net:MODEL` (`net+search:MODEL` with --search, the Master) against each
opponent, --pairs duplicate pairs (both orders of the same throws), a gammon 2 points
and a backgammon 3, with the 95% interval from the pairs' spread: cubeless
(eval/measures.py: match), or with --cube money play with the doubling cube
(eval/money_match.py). Error rates (eval/referee.py): the decisions gnubg:0 met in
--judged-pairs pairs of games against itself, every --every-th of those with two moves
or more, each move's result valued by gnubg at --plies plies; each player's mEMG a
decision (its choice's equity below the best), with its interval; then its cube
actions at the same positions, cube centred, by gnubg's cubeful equities at --plies
plies (eval/gnubg_money.py): doubling or not at each, taking or passing where gnubg
doubles. --judged-pairs 0 leaves them out.
"""
import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from benchmarks.common import report, run_script  # noqa: E402
from tabula.infra.errors import TabulaError  # noqa: E402


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", required=True, help="a standard-backgammon network")
    parser.add_argument("--search", action="store_true",
                        help="the network looking one throw ahead (net+search)")
    parser.add_argument("--cube", action="store_true",
                        help="the matches are money play with the doubling cube")
    parser.add_argument("--pairs", type=int, default=1000)
    parser.add_argument("--opponents", nargs="*", default=["heuristic", "gnubg:0"])
    parser.add_argument("--judged-pairs", type=int, default=40)
    parser.add_argument("--every", type=int, default=3)
    parser.add_argument("--judge-players", nargs="*", default=["net", "gnubg:0", "heuristic"])
    parser.add_argument("--plies", type=int, default=2)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    if (min(args.pairs, args.every) < 1 or args.judged_pairs < 0
            or not 0 <= args.plies <= 2):
        raise TabulaError("--pairs and --every take whole numbers >= 1, --judged-pairs "
                          ">= 0, --plies 0..2")
    from tabula.eval.measures import match
    from tabula.eval.money_match import money_match
    from tabula.eval.players import make_player, money_player
    from tabula.games import get_game
    game = get_game("backgammon", rules="standard")
    net = make_player(f"{'net+search' if args.search else 'net'}:{args.model}", game)
    rows = []
    for opponent in args.opponents:
        started = time.time()
        if args.cube:
            result = money_match(net, money_player(opponent, game), args.pairs, args.seed)
        else:
            result = match(net, make_player(opponent, game), args.pairs, args.seed)
        low, high = result["points_a_per_game_ci95"]
        rows.append({"measure": f"points a game against {opponent}"
                                f"{', money play with the cube' if args.cube else ''}",
                     "value": round(result["points_a_per_game"], 3),
                     "ci95": f"{low:+.3f} .. {high:+.3f}", "count": 2 * args.pairs,
                     "seconds": round(time.time() - started)})
    if args.judged_pairs:
        rows += error_rates(args, game, net)
    report("backgammon_gnubg", rows, {"model": args.model, "cube": args.cube,
                                      "model_sha256": net.model_sha256, "seed": args.seed})


def error_rates(args, game, net) -> list[dict]:
    """Each of --judge-players' mEMG a decision by gnubg at --plies plies: checker play,
    then cube actions."""
    from tabula.eval import referee
    from tabula.eval.gnubg_money import GnubgMoney
    from tabula.eval.gnubg_player import gnubg_evaluator
    from tabula.eval.players import make_player
    rows = []
    started = time.time()
    decisions = referee.met_in_play(make_player("gnubg:0", game), args.judged_pairs,
                                    args.seed + 1, args.every)
    equities = referee.move_equities(game, decisions, gnubg_evaluator(game, args.plies))
    judged_in = round(time.time() - started)
    started = time.time()
    positions = np.unique(decisions.codes)
    cube_equities = referee.cube_equities(positions, GnubgMoney(game, args.plies))
    cube_judged_in = round(time.time() - started)
    by = f"by gnubg {args.plies}-ply"
    players = [net if spec == "net" else make_player(spec, game) for spec in args.judge_players]
    for player in players:
        rate = referee.error_rate(decisions, equities, player)
        rows.append(memg_row(f"mEMG a decision of {player.spec} {by}", rate, judged_in))
    for player in players:
        rates = referee.cube_error_rate(positions, cube_equities, player)
        for kind, what in (("double", "doubling or not, cube centred"),
                           ("take", "taking or passing where gnubg doubles")):
            rows.append(memg_row(f"cube mEMG a decision of {player.spec} {by}: {what}",
                                 rates[kind], cube_judged_in))
    return rows


def memg_row(measure: str, rate: dict, seconds: int) -> dict:
    low, high = rate["memg_ci95"]
    return {"measure": measure, "value": round(rate["memg_a_decision"], 2),
            "ci95": f"{low:.2f} .. {high:.2f}", "count": rate["decisions"],
            "share_with_loss": round(rate["share_with_loss"], 3), "seconds": seconds}


if __name__ == "__main__":
    run_script(main)
