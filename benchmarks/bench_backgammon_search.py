"""Tree search on backgammon (the standard game), side by side with OpenSpiel's MCTS bot
on its C++ backgammon, both with random playouts as the evaluator: simulations a
second, in one run.

    python benchmarks/bench_backgammon_search.py --openspiel-python VENV/bin/python
                                                 [--sims 100 400] [--games 4]

OpenSpiel (PyPI `open-spiel`, 2.0.2 when measured) pins its own dependencies, so it is
run by the Python of an environment of its own (`python -m venv VENV && VENV/bin/pip
install open-spiel`), which this script starts for each row; without
--openspiel-python it is imported here if it can be.

Each side plays --games games of its search (SIMS simulations a move, one random
playout a leaf, no time limit) against a random player, the searcher first in the even
games; only the searcher's decisions with two or more legal moves are timed, from the
call to the move chosen. tabula: `mcts:SIMS` (eval/mcts.py: decision and chance nodes,
playouts compiled with the tree). OpenSpiel: `pyspiel.MCTSBot` (C++, UCT constant 2,
chance nodes sampled) with `pyspiel.RandomRolloutEvaluator(1)`. The two searches
differ in their trees (each its own selection rule and chance handling); what is
compared is the cost of a simulation, playout to the end of the game included, on the
same machine in the same run.
"""
import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from benchmarks.common import report, run_script  # noqa: E402

OPENSPIEL_SIDE = r"""
import json, sys, time
import numpy as np
import pyspiel
sims, games, seed = (int(a) for a in sys.argv[1:4])
game = pyspiel.load_game("backgammon")
rng = np.random.default_rng(seed)
bot = pyspiel.MCTSBot(game, pyspiel.RandomRolloutEvaluator(1, seed), 2.0, sims, 10**6,
                      False, seed, False)
decisions, seconds = 0, 0.0
for g in range(games):
    state = game.new_initial_state()
    searcher = g % 2
    while not state.is_terminal():
        if state.is_chance_node():
            outcomes, probs = zip(*state.chance_outcomes())
            state.apply_action(outcomes[rng.choice(len(outcomes), p=probs)])
            continue
        legal = state.legal_actions()
        if state.current_player() == searcher and len(legal) >= 2:
            started = time.perf_counter()
            action = bot.step(state)
            seconds += time.perf_counter() - started
            decisions += 1
        else:
            action = legal[rng.integers(len(legal))]
        state.apply_action(action)
print(json.dumps({"decisions": decisions, "seconds": seconds,
                  "version": getattr(pyspiel, "__version__", "")}))
"""


def tabula_side(sims: int, games: int, seed: int) -> dict:
    from tabula.eval.engine import play
    from tabula.eval.players import Player, make_player
    from tabula.games import get_game
    game = get_game("backgammon", rules="standard")
    search = make_player(f"mcts:{sims}", game)
    seconds = [0.0]

    def timed(*args, **kwargs):
        started = time.perf_counter()
        chosen = search.choose(*args, **kwargs)
        seconds[0] += time.perf_counter() - started
        return chosen
    searcher = Player(search.spec, game, timed)
    played = play(game, [searcher, make_player("random", game)], np.arange(games) % 2,
                  np.arange(games), seed)
    return {"decisions": int(played.decisions[:, 0].sum()), "seconds": seconds[0]}


def openspiel_side(python: str | None, sims: int, games: int, seed: int) -> dict:
    command = [python or sys.executable, "-c", OPENSPIEL_SIDE, str(sims), str(games),
               str(seed)]
    done = subprocess.run(command, capture_output=True, text=True)
    if done.returncode != 0:
        last = (done.stderr.strip().splitlines() or ["no output"])[-1]
        raise SystemExit(f"bench_backgammon_search.py: OpenSpiel's side failed ({last}); "
                         "give --openspiel-python, the Python of a venv with open-spiel")
    return json.loads(done.stdout)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sims", type=int, nargs="+", default=[100, 400])
    parser.add_argument("--games", type=int, default=4)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--openspiel-python", default=None, metavar="PYTHON",
                        help="the Python of a venv with open-spiel (default: this one)")
    args = parser.parse_args()
    import numba
    numba.set_num_threads(1)   # one core each: OpenSpiel's bot searches on one thread
    tabula_side(10, 1, 0)   # compiles the search before the clock starts
    rows, version = [], ""
    for sims in args.sims:
        for engine in ("tabula", "openspiel"):
            if engine == "tabula":
                result = tabula_side(sims, args.games, args.seed)
            else:
                result = openspiel_side(args.openspiel_python, sims, args.games, args.seed)
                version = result.get("version", version)
            rows.append({"engine": engine, "simulations a move": sims, "games": args.games,
                         "decisions": result["decisions"],
                         "seconds": round(result["seconds"], 1),
                         "sims/s": round(result["decisions"] * sims / result["seconds"])})
    report("backgammon_search", rows, {"openspiel_version": version, "threads": 1})
    return 0


if __name__ == "__main__":
    run_script(main)
