"""Packed codes, perfect indices and mirrors."""
import itertools
from math import comb

import numpy as np
import pytest

from tabula.games import get_game, senet, ur
from tabula.infra.batch import per_code, unrank_many
from tabula.games.game import layer_id, layer_pair
from tabula.runtime.sampling import uniform_positions

def enumerate_ur(game):
    """Every Ur position of the variant, built square by square: the opponent's squares
    are those whose tiles the mover does not hold (ur.PATHS: which square of the other
    track lies on a shared square's tile)."""
    pieces, path = game.pieces, ur.PATHS[ur.RULE_SETS[game.rules].path]
    codes = []
    squares = range(1, path.track + 1)
    for k_m in range(pieces + 1):
        for me in itertools.combinations(squares, k_m):
            taken = {path.across[s] for s in me if s in path.across}
            free_for_opp = [s for s in squares if s not in taken]
            for k_o in range(pieces + 1):
                for opp in itertools.combinations(free_for_opp, k_o):
                    for w_m in range(pieces - k_m + 1):
                        for w_o in range(pieces - k_o + 1):
                            codes.append(game.position_from_json(
                                {"me": list(me), "me_waiting": w_m, "opp": list(opp),
                                 "opp_waiting": w_o}))
    return np.array(codes, dtype=np.int64)


def enumerate_senet_layer(m, o):
    squares = [s for s in range(1, 31) if s != 27]
    codes = []
    for me in itertools.combinations(squares, m):
        me_mask = sum(1 << (s - 1) for s in me)
        rest = [s for s in squares if s not in me]
        for opp in itertools.combinations(rest, o):
            codes.append(me_mask | (sum(1 << (s - 1) for s in opp) << 30))
    return np.array(codes, dtype=np.int64)


def assert_ranks_are_a_bijection(game, codes):
    """Each layer's ranks are exactly 0 .. size-1, and unrank inverts rank."""
    layers = per_code(game.layer_of, codes)
    ranks = per_code(game.rank, codes)
    for layer in np.unique(layers):
        a, b = layer_pair(int(layer))
        in_layer = np.sort(ranks[layers == layer])
        assert np.array_equal(in_layer, np.arange(game.layer_size(a, b))), (a, b)
    assert np.array_equal(unrank_many(game.unrank, layers, ranks), codes)


@pytest.mark.parametrize("pieces,total,non_terminal",
                         [(1, 248, 217), (2, 13_112, 12_869), (3, 264_304, 263_121)])
def test_ur_enumeration_matches_rules_counts(pieces, total, non_terminal):
    game = get_game("ur", pieces)
    codes = enumerate_ur(game)
    assert len(codes) == total == game.total_positions()
    assert len(set(codes.tolist())) == total
    in_play = [(a, b) for a, b in game.layers if a and b]
    assert sum(game.layer_size(a, b) for a, b in in_play) == non_terminal
    assert_ranks_are_a_bijection(game, codes)


def test_ur_counts_by_formula():
    game = get_game("ur", 7)
    assert game.total_positions() == 137_913_936
    assert sum(game.layer_size(a, b) for a, b in game.layers if a and b) == 137_870_097


@pytest.mark.parametrize("rules,pieces", [("masters", 1), ("masters", 2), ("blitz", 2)])
def test_masters_path_enumeration_is_the_index(rules, pieces):
    game = get_game("ur", pieces, rules)
    codes = enumerate_ur(game)
    assert len(codes) == len(set(codes.tolist())) == game.total_positions()
    assert_ranks_are_a_bijection(game, codes)


@pytest.mark.parametrize("rules,published", [("finkel", 137_892_016),
                                             ("masters", 500_981_472), ("blitz", 41_254_034)])
def test_position_counts_are_the_published_ones(rules, published):
    """The public Ur solvers count every position but those where the player to throw
    has already borne off every piece (layers (0, b)): the game ended with the other
    side's move, and is stored under the winner's turn."""
    game = get_game("ur", rules=rules)
    finished = sum(game.layer_size(0, b) for b in range(game.pieces + 1))
    assert game.total_positions() - finished == published


def test_senet_small_layers_by_enumeration():
    """All layers with at most 5 pieces in total: 3,917,900 positions."""
    game = get_game("senet")
    total = 0
    for m, o in game.layers:
        if m + o > 5:
            continue
        codes = enumerate_senet_layer(m, o)
        assert len(codes) == game.layer_size(m, o) == comb(29, m) * comb(29 - m, o)
        assert_ranks_are_a_bijection(game, codes)
        total += len(codes)
    assert total == 3_917_900


def test_senet_counts_by_formula():
    four = get_game("senet", 4)
    assert four.total_positions() == 437_373_650
    assert get_game("senet", 3).total_positions() == 12_230_750
    assert get_game("senet", 5).total_positions() == 8_560_690_670


@pytest.mark.parametrize("name,rules", [("ur", None), ("ur", "masters"), ("senet", None)])
def test_round_trip_on_random_positions_of_every_layer(name, rules):
    game = get_game(name, rules=rules)
    rng = np.random.default_rng(5)
    for a, b in game.layers:
        size = game.layer_size(a, b)
        ranks = np.unique(rng.integers(0, size, size=min(size, 2000)))
        layers = np.full(len(ranks), layer_id(a, b), dtype=np.int64)
        codes = unrank_many(game.unrank, layers, ranks)
        assert np.array_equal(per_code(game.rank, codes), ranks)
        assert np.all(per_code(game.layer_of, codes) == layer_id(a, b))
        for code in codes[:50]:  # decoded positions are legal ones
            assert game.position_from_json(game.to_json(code)) == code


@pytest.mark.parametrize("name,rules", [("ur", None), ("ur", "masters"), ("senet", None)])
def test_mirror_swaps_sides(name, rules):
    game = get_game(name, rules=rules)
    for code in uniform_positions(game, 500, seed=3):
        twin = game.mirror(code)
        assert game.mirror(twin) == code
        a, b = layer_pair(game.layer_of(code))
        assert game.layer_of(twin) == layer_id(b, a)
        p, q = game.to_json(code), game.to_json(twin)
        assert p["me"] == q["opp"] and p["opp"] == q["me"]


def test_json_round_trip_examples():
    ur7 = get_game("ur")
    assert ur7.to_json(ur7.position_from_json({"me": [4, 9], "me_waiting": 3, "opp": [5],
                                               "opp_waiting": 6})) == \
        {"me": [4, 9], "me_waiting": 3, "opp": [5], "opp_waiting": 6}
    start = get_game("senet").start
    assert senet.to_json(start) == {"me": [1, 3, 5, 7, 9], "opp": [2, 4, 6, 8, 10]}
    assert senet.to_json(get_game("senet", 2).start) == {"me": [7, 9], "opp": [8, 10]}
    assert get_game("ur", 3).to_json(get_game("ur", 3).start) == \
        {"me": [], "me_waiting": 3, "opp": [], "opp_waiting": 3}
