"""The game contract (games/game.py), checked on every registered game and variant,
in the manner of OpenSpiel's generic game tests. A new game gets all of this by
registering; the toy race of tests/toy is registered only here, by tests/conftest.py.

Variants small enough are enumerated whole; larger ones are sampled (the cheap checks).
"""
import inspect
import json
import typing

import numpy as np
import pytest

from tabula.games import GAMES, PositionError, get_game, rule_sets
from tabula.infra.batch import per_code, unrank_many
from tabula.games.game import (AGAIN, LAYER_STRIDE, OVER, Game, layer_id, layer_pair, worth,
                               worths)
from tabula.games.loop import advance
from tabula.runtime.sampling import random_play_positions, uniform_positions
from tabula.solver.layered import solve
from tabula.solver.reference import reference_solve
from tabula.solver.table import Table

WHOLE = 300_000      # layers up to this size are enumerated whole
SAMPLE = 20_000      # positions sampled from larger ones
SOLVE_LIMIT = 20_000  # the smallest variant is solved both ways if it has at most this many



def playable(name, pieces, rules) -> bool:
    """Whether the rule set takes that many pieces (EinStein's 2x2 board takes one)."""
    try:
        get_game(name, pieces, rules)
    except PositionError:
        return False
    return True


VARIANTS = [(name, pieces, None) for name, module in sorted(GAMES.items())  # 1..7, the most
            for pieces in sorted({*range(1, min(module.MAX_PIECES, 7) + 1), module.MAX_PIECES})
            if playable(name, pieces, None)]
VARIANTS += [(name, pieces, rules) for name in sorted(GAMES)   # other rule sets: 1..3 and
             for rules in rule_sets(name)[1:]                  # their own
             for pieces in sorted({1, 2, 3, get_game(name, rules=rules).pieces})
             if playable(name, pieces, rules)]


def positions(game, seed=0):
    """Positions to check: uniform within layers and met in random play."""
    return np.concatenate([uniform_positions(game, SAMPLE, seed),
                           random_play_positions(game, SAMPLE // 4, seed + 1)])


# the fast tier (make check) checks every game and rule set with 1 to 3 pieces a side;
# the larger variants run with the slow tests
@pytest.fixture(scope="module", params=[
    pytest.param(v, marks=[pytest.mark.slow] if v[1] > 3 else []) for v in VARIANTS],
                ids=[f"{n}{p}" + (f"-{r}" if r else "") for n, p, r in VARIANTS])
def game(request):
    return get_game(*request.param)


def test_throws_layers_and_start(game):
    assert len(game.throws) == len(game.probs) and (game.probs > 0).all()
    assert abs(game.probs.sum() - 1.0) < 1e-12
    assert game.throws.dtype == np.int64 and len(set(game.throws.tolist())) == len(game.throws)
    assert len(set(game.layers)) == len(game.layers)
    assert all(0 <= a < LAYER_STRIDE and 0 <= b < LAYER_STRIDE for a, b in game.layers)
    assert layer_pair(game.layer_of(game.start)) in game.layers
    assert game.total_positions() == sum(game.layer_size(*p) for p in game.layers)


def test_rank_unrank_is_a_bijection_per_layer(game):
    for a, b in game.layers:
        size = game.layer_size(a, b)
        ranks = (np.arange(size) if size <= WHOLE
                 else np.random.default_rng(a * 16 + b).integers(0, size, SAMPLE))
        codes = unrank_many(game.unrank, np.full(len(ranks), layer_id(a, b)), ranks,
                            game.code_dtype)
        assert (per_code(game.layer_of, codes) == layer_id(a, b)).all(), (a, b)
        assert np.array_equal(per_code(game.rank, codes), ranks), (a, b)
        if size <= WHOLE:
            assert len(np.unique(codes)) == size, (a, b)


def test_mirror_is_an_involution_that_swaps_the_layer(game):
    for code in positions(game)[:5000]:
        twin = game.mirror(code)
        assert game.mirror(twin) == code
        a, b = layer_pair(game.layer_of(code))
        assert layer_pair(game.layer_of(twin)) == (b, a)


def test_moves_are_legal_and_land_where_the_solver_expects(game):
    """Distinct results, sane info fields, and successors only in the layers the game
    declares a move of the layer may reach where play goes on (game.successor_layers:
    the solver orders and loads layers by it), with pieces on both sides; in a race a
    win leaves the mover with none."""
    declared = set(game.layers)
    out_codes = np.zeros(game.max_moves, dtype=game.code_dtype)
    out_info = np.zeros(game.max_moves, dtype=np.int64)
    for code in positions(game)[:8000]:
        a, b = layer_pair(game.layer_of(code))
        for throw in game.throws:
            n = game.moves(code, throw, out_codes, out_info)
            assert 0 <= n <= game.max_moves
            assert len(set(out_codes[:n].tolist())) == n, "moves are told apart by result"
            for nxt, info in zip(out_codes[:n], out_info[:n]):
                assert info >> 12 == 0 and not (info & AGAIN and info & OVER)
                reached = layer_pair(game.layer_of(nxt))
                if not info & OVER:
                    assert reached in game.successor_layers(a, b), (code, throw, info)
                    assert reached in declared and min(reached) > 0
                elif not game.capabilities.removes_for_good:
                    assert reached[0 if info & AGAIN else 1] == 0


def test_random_play_stays_in_declared_layers(game):
    met = random_play_positions(game, 5000, seed=3)
    declared = {layer_id(*p) for p in game.layers}
    assert set(per_code(game.layer_of, met).tolist()) <= declared


def test_features_shape_and_dtype(game):
    import torch
    codes = torch.from_numpy(positions(game)[:512])
    x = game.encoding.features(codes)
    assert x.dtype == torch.float32 and tuple(x.shape) == (512, game.encoding.n_features)
    assert torch.isfinite(x).all()


def test_json_round_trip_and_bad_json_refused(game):
    for code in positions(game)[:2000]:
        obj = game.to_json(code)
        assert game.position_from_json(json.loads(json.dumps(obj))) == code
    for bad in (None, [], "start", 5, {}, {"me": "x"}, {"nonsense": 1}):
        with pytest.raises(PositionError):
            game.position_from_json(bad)
    with pytest.raises(PositionError):
        game.check_throw(int(game.throws.max()) + 1)


def test_people_facing_parts(game):
    """Heuristic in [0, 1], a board drawing, two side names, labels, the rules text."""
    codes = positions(game)[:200]
    for code in codes:
        assert 0.0 <= game.heuristic(code) <= 1.0
    shown = game.presentation
    assert isinstance(shown.board(game.start, True), str) and shown.board(game.start, False)
    assert len(shown.sides) == 2 and shown.sides[0] != shown.sides[1]
    assert all(isinstance(label, str) for label in shown.square_names.values())
    assert shown.rules_text().startswith("# ")
    assert shown.code_layout and game.encoding.doc()


def test_board_geometry_and_views(game):
    """Every piece of a view stands on a cell of the layout; the pieces add up; every
    move's squares have cells; events are words."""
    layout = game.presentation.layout
    ids = {c["id"] for c in layout["cells"]}
    assert len(ids) == len(layout["cells"])
    assert all(0 <= c["row"] < layout["rows"] and 0 <= c["col"] < layout["cols"]
               for c in layout["cells"])
    for code in positions(game)[:300]:
        for first in (True, False):
            view = game.presentation.board_view(code, first)
            assert set(view["cells"]) <= ids
            stacks = view.get("stacks", {})   # games with stacks count them there
            shown = [sum(stacks.get(c, 1) for c, s in view["cells"].items() if s == seat)
                     + view["waiting"][seat] + view["off"][seat] for seat in (0, 1)]
            if game.capabilities.pieces_in_all:
                assert 2 <= sum(shown) <= game.pieces
            else:
                assert shown == [game.pieces, game.pieces]
        for throw in game.throws:
            for move in game.legal_moves(code, throw):
                for square in (move["from"], move["to"]):
                    cell = game.presentation.cell(0, square)
                    assert cell in ids or any(cell.startswith(p)
                                              for p in game.presentation.layout["pools"])
                assert all(isinstance(e, str) for e in game.presentation.events(code, move))


def test_the_compiled_functions_take_what_their_protocols_say(game):
    """Each compiled function of the contract takes the arguments its protocol in
    games/game.py names (Moves, CodeToInt, Unrank, CodeToFloat)."""
    for name, protocol in typing.get_type_hints(Game).items():
        if getattr(protocol, "_is_protocol", False):
            function = getattr(game, name)
            taken = inspect.signature(getattr(function, "py_func", function)).parameters
            named = list(inspect.signature(protocol.__call__).parameters)[1:]
            assert len(taken) == len(named), (name, list(taken), named)


def test_the_game_loop_step(game):
    out_codes = np.zeros(game.max_moves, dtype=game.code_dtype)
    out_info = np.zeros(game.max_moves, dtype=np.int64)
    code = game.start
    for throw in game.throws:
        n = game.moves(code, throw, out_codes, out_info)
        nxt, passes, over = advance(game.mirror, code, n, out_codes, out_info, 0)
        if n == 0:
            assert nxt == game.mirror(code) and passes and not over
        else:
            assert nxt == out_codes[0]
            assert over == bool(out_info[0] & OVER)
            assert passes == (not over and not out_info[0] & AGAIN)


def test_the_move_worth_in_numba_numpy_and_torch_agree():
    import torch

    from tabula.training.model import torch_worths
    infos = np.array([0, AGAIN, OVER, 3 | AGAIN, 7 << 5, OVER | 9], dtype=np.int64)
    values = np.array([0.25, 0.25, 0.4, 0.9, 0.9, 0.1])
    expected = np.array([worth(i, v) for i, v in zip(infos, values)])
    assert np.allclose(expected, [0.75, 0.25, 1.0, 0.9, 0.1, 1.0], rtol=0, atol=1e-15)
    assert np.array_equal(worths(infos, values), expected)
    got = torch_worths(torch.from_numpy(infos), torch.from_numpy(values))
    assert np.array_equal(got.numpy(), expected)


SMALLEST = [(name, 1, rules) for name in sorted(GAMES) for rules in rule_sets(name)
            if playable(name, 1, rules)]


@pytest.mark.parametrize("name,pieces,rules", SMALLEST)
def test_fast_solver_equals_the_reference_on_the_smallest_variant(name, pieces, rules,
                                                                   tmp_path):
    game = get_game(name, pieces, rules)
    assert game.total_positions() <= SOLVE_LIMIT
    solve(game, tmp_path / "t.h5", quiet=True)
    table = Table(tmp_path / "t.h5")
    reference = reference_solve(game)
    for layer, exact in reference.items():
        assert np.abs(table.layer(*layer).astype(np.float64) - exact).max() <= 1e-7, layer
