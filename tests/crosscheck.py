"""Move-for-move agreement of the compiled games with independent implementations.

    python -m tests.crosscheck ur 1000000        # against tests/reference
    python -m tests.crosscheck ur 100000 --royalur
    python -m tests.crosscheck ur 100000 --royalur --rules masters

Positions: half drawn uniformly inside random layers, half met in random play.
"""
import argparse
import sys
import time
from functools import partial

import numpy as np

from tabula.games import get_game, rule_sets, ur
from tabula.runtime.sampling import random_play_positions, uniform_positions
from tests.reference import senet_rules, ur_rules


def to_reference_state(game, code):
    p = game.to_json(code)
    if game.name == "ur":
        return (frozenset(p["me"]), p["me_waiting"], frozenset(p["opp"]), p["opp_waiting"])
    return (frozenset(p["me"]), frozenset(p["opp"]))


REFERENCE = {"ur": ur_rules.legal_moves, "senet": senet_rules.legal_moves}


def reference_moves(game):
    """The reference's legal_moves(state, throw) for the game's rule set."""
    if game.name == "ur":
        return partial(ur_rules.legal_moves, **ur_rules.rule_switches(ur.RULE_SETS[game.rules]))
    return REFERENCE[game.name]


def fast_moves(game, code, throw):
    return [(to_reference_state(game, m["position"]), m["again"], m["over"])
            for m in game.legal_moves(code, throw)]


def _canonical(moves):
    """Moves as a sorted list, each state's piece sets as sorted tuples."""
    def state(st):
        return tuple(tuple(sorted(x)) if isinstance(x, frozenset) else x for x in st)
    return sorted((state(st), again, over) for st, again, over in moves)


def mixed_positions(game, n, seed):
    half = n // 2
    return np.concatenate([uniform_positions(game, half, seed),
                           random_play_positions(game, n - half, seed + 1)])


def disagreements(game, codes, reference_moves, limit=5):
    """First `limit` (code, throw, fast, reference) where the move sets differ."""
    found = []
    for code in codes:
        state = to_reference_state(game, int(code))
        for throw in game.throws:
            fast = _canonical(fast_moves(game, int(code), int(throw)))
            ref = _canonical(reference_moves(state, int(throw)))
            if fast != ref:
                found.append((int(code), int(throw), fast, ref))
                if len(found) >= limit:
                    return found
    return found


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("game", choices=sorted(REFERENCE))
    parser.add_argument("positions", type=int)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--rules", choices=rule_sets("ur"), default=None,
                        help="Ur's rule set (default: finkel)")
    parser.add_argument("--royalur", action="store_true",
                        help="compare with the royalur package instead (Ur only)")
    args = parser.parse_args(argv)
    game = get_game(args.game, rules=args.rules)
    if args.royalur:
        from tests.royalur_bridge import royalur_moves
        reference = royalur_moves(game.pieces, ur.RULE_SETS[game.rules])
    else:
        reference = reference_moves(game)
    t0 = time.time()
    codes = mixed_positions(game, args.positions, args.seed)
    bad = []
    for start in range(0, len(codes), 100_000):
        bad = disagreements(game, codes[start:start + 100_000], reference)
        done = min(start + 100_000, len(codes))
        print(f"{done:,} positions x {len(game.throws)} throws checked, "
              f"{time.time() - t0:.0f} s", file=sys.stderr, flush=True)
        if bad:
            break
    for code, throw, fast, ref in bad:
        print(f"DISAGREE {game.to_json(code)} throw {throw}\n  fast: {fast}\n  ref:  {ref}")
    print(f"{args.game}: {len(codes):,} positions, {'FAIL' if bad else 'all moves agree'}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
