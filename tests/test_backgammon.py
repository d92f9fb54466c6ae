"""Backgammon with contact (games/backgammon_rules.py, games/backgammon.py): the plays of
every roll equal a plain reference (tests/reference/backgammon_rules.py) and GNU
Backgammon's (tests/gnubg_bridge.py) on positions drawn uniformly and met in random
play, for hypergammon with 1, 2 and 3 checkers and the standard game; the counts equal
makehyper's and the rules file's vectors; notation and position JSON."""
import numpy as np
import pytest

from tabula.games import backgammon, backgammon_standard as standard_rules, get_game
from tabula.games.backgammon_shots import double_hit_chance, hit_chances, shot_tables
from tabula.games.backgammon_view import checker_steps, notation
from tabula.games.game import PositionError
from tabula.infra.batch import per_code
from tabula.runtime.sampling import random_play_positions, uniform_positions
from tests.gnubg_bridge import (ROLLS, agrees_with_gnubg, game_plays, gnubg_board,
                                sample_states, start_state, tabula_plays)
from tests.reference import backgammon_rules as reference

# shared/rules/backgammon.md: distinct plays from the standard start (gnubg 1.07)
START_PLAYS = {"1-1": 42, "2-1": 15, "2-2": 75, "3-1": 16, "3-2": 17, "3-3": 73,
               "4-1": 14, "4-2": 18, "4-3": 17, "4-4": 52, "5-1": 8, "5-2": 8, "5-3": 9,
               "5-4": 9, "5-5": 4, "6-1": 10, "6-2": 14, "6-3": 14, "6-4": 14, "6-5": 7,
               "6-6": 11}
# makehyper's legal positions (both sides borne off counted once, as it does)
MAKEHYPER_POSITIONS = {1: 652, 2: 107_253, 3: 7_959_904}


def test_plays_from_the_standard_start_match_the_rules_file():
    me, opp = start_state(15)
    assert {f"{high}-{low}": len(tabula_plays(me, opp, high, low))
            for high, low in ROLLS} == START_PLAYS


@pytest.mark.parametrize("checkers, n", [(1, 300), (2, 300), (3, 300), (15, 60)])
def test_plays_equal_the_reference(checkers, n):
    """The board rules' plays equal the reference's, and the game's (its codes and
    moves: hyper for 1..3 checkers, standard for 15) equal the board rules'."""
    for me, opp in sample_states(checkers, n, seed=checkers):
        for high, low in ROLLS:
            plays = tabula_plays(me, opp, high, low)
            assert plays == reference.plays(me, opp, high, low), (me, opp, high, low)
            assert game_plays(me, opp, high, low) == plays, (me, opp, high, low)


def _gnubg_sample(checkers, n, seed):
    pytest.importorskip("gnubg")
    kinds = {"hit": 0, "bar": 0, "off": 0}
    for me, opp in sample_states(checkers, n, seed):
        kinds["bar"] += me[25] > 0
        kinds["off"] += me[0] > 0 or checkers == 1   # one checker off ends the game
        for high, low in ROLLS:
            assert agrees_with_gnubg(me, opp, high, low) is None, (me, opp, high, low)
            kinds["hit"] += any(after[1][25] > opp[25]
                                for after in tabula_plays(me, opp, high, low))
    assert all(kinds.values()), kinds     # the sample met hits, bar entries, bear-offs


@pytest.mark.parametrize("checkers", [1, 2, 3, 15])
def test_plays_equal_gnubg_on_a_sample(checkers):
    _gnubg_sample(checkers, 60 if checkers == 15 else 200, seed=10 + checkers)


@pytest.mark.slow
@pytest.mark.parametrize("checkers", [1, 2, 3, 15])
def test_plays_equal_gnubg_on_thousands(checkers):
    _gnubg_sample(checkers, 400 if checkers == 15 else 2000, seed=100 + checkers)


@pytest.mark.parametrize("checkers", [1, 2])
def test_position_counts_equal_makehyper(checkers):
    layers = [(a, b) for a in range(checkers + 1) for b in range(checkers + 1) if a or b]
    assert sum(backgammon.layer_size(a, b) for a, b in layers) + 1 == \
        MAKEHYPER_POSITIONS[checkers]


def test_three_checker_counts_equal_makehyper():
    layers = [(a, b) for a in range(4) for b in range(4) if a or b]
    assert sum(backgammon.layer_size(a, b) for a, b in layers) + 1 == MAKEHYPER_POSITIONS[3]
    game_over = sum(backgammon.layer_size(a, b) for a, b in layers if not (a and b)) + 1
    assert game_over == 6_551


@pytest.mark.parametrize("checkers", [2, 3])
def test_hit_chances_equal_the_reference(checkers):
    """The network's inputs on shots (games/backgammon_shots.py): each blot's chance of
    being hit, and of any being hit, equal the reference's, which plays every order of
    the dice one checker at a time (a point held in the way, the bar first)."""
    import torch
    states = sample_states(checkers, 400, seed=20 + checkers)
    codes = torch.as_tensor([int(backgammon.code_of_board(np.array(me + opp, dtype=np.int8)))
                             for me, opp in states])
    mine, theirs = backgammon.checker_places(codes)
    tables = shot_tables(codes)
    found = [hit_chances(side, other, tables) for side, other in ((mine, theirs), (theirs, mine))]
    blots_seen = shots_seen = 0
    for n, (me, opp) in enumerate(states):
        for (each, any_hit), places, owner, hitter in zip(found, (mine, theirs),
                                                           (me, opp), (opp, me)):
            chances, expected_any = reference.hit_chances(hitter, owner)
            expected = [chances.get(int(place), 0.0) for place in places[n]]
            assert each[n].tolist() == pytest.approx(expected, abs=1e-6), (me, opp)
            assert float(any_hit[n]) == pytest.approx(expected_any, abs=1e-6), (me, opp)
            blots_seen += len(chances)
            shots_seen += expected_any > 0
    assert blots_seen > 100 and shots_seen > 50


@pytest.mark.parametrize("checkers", [2, 3])
def test_double_hit_chances_equal_the_reference(checkers):
    """The chance of hitting two blots in one play (games/backgammon_shots.py) equals the
    reference's, which plays every order of the dice one checker at a time, both ways
    round, on positions drawn uniformly and met in random play (bars included)."""
    import torch
    states = sample_states(checkers, 600, seed=40 + checkers)
    codes = torch.as_tensor([int(backgammon.code_of_board(np.array(me + opp, dtype=np.int8)))
                             for me, opp in states])
    mine, theirs = backgammon.checker_places(codes)
    tables = shot_tables(codes)
    found = [double_hit_chance(side, other, tables)[:, 0].tolist()
             for side, other in ((mine, theirs), (theirs, mine))]
    expected = [[reference.double_hit_chance(hitter, owner) for me, opp in states
                 for hitter, owner in [(opp, me) if side == 0 else (me, opp)]]
                for side in (0, 1)]
    assert found == [pytest.approx(chances, abs=1e-6) for chances in expected]
    doubles = [c for chances in expected for c in chances if c > 0]
    assert len(doubles) > 50 and len({round(c * 36) for c in doubles}) > 5
    with_bar = [c for (me, opp), c in zip(states, expected[0]) if opp[25] and c > 0]
    assert with_bar, "no position with the hitter on the bar and a double shot"


def test_best_hit_pips_of_the_reference():
    """The reference's pips sent back by the best hit (benchmarks/bench_hyper_residuals.py
    groups errors by it): with one blot to hit, its chance of being hit times the pips it
    goes back; with two, at least the better of those and at most their sum."""
    one = two = 0
    for me, opp in sample_states(3, 300, seed=44):
        blots = [p for p in range(1, 25) if opp[p] == 1]
        if not blots:
            continue
        chances, _ = reference.hit_chances(me, opp)
        each = [(25 - p) * chances[p] for p in blots]
        pips = reference.best_hit_pips(me, opp)
        if len(blots) == 1:
            one += 1
            assert pips == pytest.approx(each[0])
        else:
            two += 1
            assert max(each) - 1e-9 <= pips <= sum(each) + 1e-9
    assert one > 20 and two > 20


def test_point_on_blot_chance_of_the_reference():
    """The reference's chance of pointing on a blot (benchmarks/bench_hyper_residuals.py
    groups errors by it): two checkers 6 pips from a blot point on it with 6-6 and 3-3
    alone; anywhere, it is at most the chance of any hit, and 0 with fewer than two
    checkers in play (the bar included)."""
    me, opp = [0] * 26, [0] * 26
    me[8], me[24], opp[23], opp[6] = 2, 1, 1, 2
    assert reference.point_on_blot_chance(me, opp) == pytest.approx(2 / 36)
    pointed = 0
    for me, opp in sample_states(3, 300, seed=45):
        chance = reference.point_on_blot_chance(me, opp)
        assert chance <= reference.hit_chances(me, opp)[1] + 1e-9
        if sum(me[1:]) < 2:
            assert chance == 0
        pointed += chance > 0
    assert pointed > 20


def test_notation_is_gnubgs():
    """Every play from positions of the standard game met in random play, in notation:
    the same checkers' paths as gnubg writes them; the same text on all but a few (4% of
    this sample's 3,868 plays) where two checkers reach a point by different ways or hit
    on the way
    (gnubg writes both by the way of the one that hit: '13/11*/9(2)' for
    '13/11*/9 13/9')."""
    gnubg = pytest.importorskip("gnubg")

    def paths(text):
        out = []
        for part in text.split():
            count = int(part[part.index("(") + 1:-1]) if "(" in part else 1
            points = part.split("(")[0].replace("*", "").split("/")
            out += [(points[0], points[-1])] * count
        return sorted(out)
    same = total = 0
    for me, opp in sample_states(15, 4, seed=7):
        board = gnubg_board(me, opp)
        for high, low in ROLLS:
            for move in gnubg.findbestmoves(board, gnubg.cubeinfo(), gnubg.evalcontext(),
                                            (high, low)):
                steps = move["move"]
                if len(steps) % 2:
                    continue       # cut at a checker borne off (tests/gnubg_bridge.py)
                state = (me, opp)
                for i in range(0, len(steps), 2):
                    state = reference.step(*state, steps[i], steps[i + 1])
                ours = notation(checker_steps(np.array(me + opp, dtype=np.int8),
                                              np.array(state[0] + state[1], dtype=np.int8),
                                              10 * high + low))
                theirs = gnubg.movetupletostring(steps, board)
                assert paths(ours) == paths(theirs), (ours, theirs)
                same += ours == theirs
                total += 1
    print(f"notation: {same} of {total} plays written as gnubg writes them")
    assert same >= 0.95 * total


def test_notation_of_hits_entries_and_bear_offs():
    game = get_game("backgammon", 3)
    code = game.from_json({"me": ["bar", 6, 5], "opp": [21, 1]}, 3)
    written = {game.presentation.notation(code, m["position"], 31)
               for m in game.legal_moves(code, 31)}
    assert {"bar/24*/21", "bar/22 5/4*", "bar/21"} <= written
    code = game.from_json({"me": [2, 1], "opp": [21]}, 3)
    written = {game.presentation.notation(code, m["position"], 21): m["over"]
               for m in game.legal_moves(code, 21)}
    assert written == {"2/off 1/off": True, "2/off": False}


def test_json_round_trip_and_refusals():
    game = get_game("backgammon", 3)
    code = game.from_json({"me": ["bar", 24, 24], "opp": [6]}, 3)
    assert game.to_json(code) == {"me": ["bar", 24, 24], "opp": [6]}
    for bad in ({"me": [7], "opp": [18]}, {"me": [], "opp": [1]}, {"me": [26], "opp": [1]},
                {"me": [1, 2, 3, 4], "opp": [1]}, {"me": ["off"], "opp": [1]}):
        with pytest.raises(PositionError):
            game.from_json(bad, 3)


def test_gammons_and_backgammons():
    game = get_game("backgammon", 3)
    single = game.from_json({"me": [1], "opp": [12, 12]}, 3)
    gammon = game.from_json({"me": [1], "opp": [12, 12, 7]}, 3)
    backgammon_ = game.from_json({"me": [1], "opp": [12, 12, 20]}, 3)
    on_bar = game.from_json({"me": [1], "opp": [12, 12, "bar"]}, 3)
    assert [game.win_size(c) for c in (single, gammon, backgammon_, on_bar)] == [1, 2, 3, 3]


def test_position_ids_equal_gnubgs():
    gnubg = pytest.importorskip("gnubg")
    from tabula.games.gnubg_id import board_of_id, position_id
    me, opp = start_state(15)
    assert position_id(list(me[1:]), list(opp[1:])) == "4HPwATDgc/ABMA"
    for me, opp in sample_states(15, 100, seed=3) + sample_states(3, 100, seed=4):
        text = position_id(list(me[1:]), list(opp[1:]))
        assert text == gnubg.positionid(gnubg_board(me, opp))
        assert board_of_id(text) == (list(me[1:]), list(opp[1:]))
    game = get_game("backgammon", 3)
    for code in [game.start, game.from_json({"me": ["bar", 6, 5], "opp": [21, 1]}, 3)]:
        assert game.position_from_json({"gnubg_id": gnubg_id_of(game, code)}) == code
    standard = get_game("backgammon", rules="standard")
    assert standard.position_from_json({"gnubg_id": "4HPwATDgc/ABMA"}) == standard.start
    for code in random_play_positions(standard, 200, seed=5):
        text = gnubg_id_of(standard, code)
        assert text == gnubg.positionid(gnubg_board(*_state(standard_rules.board_of(code))))
        assert standard.position_from_json({"gnubg_id": text}) == code
    for bad in ("4HPwATDgc/ABM", "4HPwATDgc/AB!A", 12):
        with pytest.raises(PositionError):
            game.from_json({"gnubg_id": bad}, 3)


def gnubg_id_of(game, code) -> str:
    read = standard_rules.board_of if game.rules == "standard" else backgammon.board_of
    return backgammon.gnubg_id(read(code))


def _state(board):
    return tuple(int(c) for c in board[:26]), tuple(int(c) for c in board[26:])


def _positions_by_places(checkers: int) -> int:
    """Every position of the standard game, counted another way than the game's ranks
    (place by place, off and the bar included, neither side all borne off or not):
    each side's checkers over off, its 24 points and the bar, no point held by both."""
    from functools import cache

    @cache
    def ways(points, mine, theirs):
        if points == 0:              # the rest split between off and the bar
            return (mine + 1) * (theirs + 1)
        return ways(points - 1, mine, theirs) + \
            sum(ways(points - 1, mine - k, theirs) for k in range(1, mine + 1)) + \
            sum(ways(points - 1, mine, theirs - k) for k in range(1, theirs + 1))
    return ways(24, checkers, checkers)


def test_the_standard_games_positions_need_more_than_64_bits():
    """Its layers (every pair of checkers in play, 0 included) hold every position,
    counted place by place: 18,528,584,051,601,162,496, more than 2^64, which is why
    its codes have two parts; every layer's size is below 2^63, so a rank is an int64."""
    sizes = [standard_rules.layer_size(a, b) for a in range(16) for b in range(16)]
    assert sum(sizes) == _positions_by_places(15) == 18_528_584_051_601_162_496 > 2**64
    assert max(sizes) < 2**63


def test_standard_codes_rank_and_mirror_at_the_extremes():
    game = get_game("backgammon", rules="standard")
    extremes = [{"me": ["bar"] * 15, "opp": ["bar"] * 15},
                {"me": [24] * 15, "opp": [24] * 15}, {"me": [1], "opp": [1]},
                {"me": ["bar"] * 14 + [1], "opp": [18] * 15},
                {"me": [24, 24, 13, 13, 13, 13, 13, 8, 8, 8, 6, 6, 6, 6, 6],
                 "opp": ["bar", "bar", 20, 20, 20, 20, 20, 11, 11, 11, 2, 2, 2, 2, 2]}]
    codes = game.codes([game.position_from_json(e) for e in extremes])
    assert codes.dtype == np.complex128
    for obj, code in zip(extremes, codes):
        assert game.to_json(code) == obj
        layer = game.layer_of(code)
        assert game.unrank(layer, game.rank(code)) == code
        assert game.mirror(game.mirror(code)) == code
        assert game.to_json(game.mirror(code)) == {"me": obj["opp"], "opp": obj["me"]}
    met = np.concatenate([uniform_positions(game, 3000, 1), random_play_positions(game, 3000, 2)])
    assert game.are_positions(met).all()
    assert not game.are_positions(met + 0.5).any()
    assert (per_code(game.rank, met) >= 0).all()


def test_standard_gammons_and_backgammons():
    game = get_game("backgammon", rules="standard")
    home = [1] * 15
    wins = {1: {"me": [1], "opp": [12] * 14},
            2: {"me": [1], "opp": [12] * 15},
            3: {"me": [1], "opp": [12] * 14 + [20]}}
    assert {size: game.win_size(game.position_from_json(obj)) for size, obj in wins.items()} \
        == {1: 1, 2: 2, 3: 3}
    assert game.win_size(game.position_from_json({"me": [1], "opp": home[:14] + ["bar"]})) == 3


def test_the_standard_game_refuses_other_checker_counts_and_a_solve():
    from tabula.solver.contact import check_size
    from tabula.solver.layered import SolveError
    with pytest.raises(PositionError, match="15 checkers"):
        get_game("backgammon", 3, "standard")
    with pytest.raises(SolveError, match="too large to solve"):
        check_size(get_game("backgammon", rules="standard"))


@pytest.mark.parametrize("spec", ["expectimax:1", "mcts:64"])
def test_the_searches_choose_on_two_part_codes(spec):
    """Generic players, tree searches included, run on the standard game's codes; one
    throw of expectimax over the pip-race heuristic opens 6-1 by making the 7-point."""
    from tabula.eval.players import make_player
    from tabula.eval.search import decision_form
    game = get_game("backgammon", rules="standard")
    moves = game.legal_moves(game.start, 61)
    chosen = make_player(spec, game).choose(game.codes([game.start]),
                                            *decision_form(game, moves), np.array([0.5]))
    written = game.presentation.notation(game.start, moves[int(chosen[0])]["position"], 61)
    assert written in {game.presentation.notation(game.start, m["position"], 61)
                       for m in moves}
    if spec.startswith("expectimax"):
        assert written == "13/7 8/7"


def test_the_standard_games_apprentice_beats_random_play_and_matches_count_gammons():
    """The hand-made heuristic (the race and the shots at the other side's blots) against
    random moves, cubeless: it wins most games, many of them gammons, and the match
    scores them in points."""
    from tabula.eval.measures import match
    from tabula.eval.players import make_player
    game = get_game("backgammon", rules="standard")
    result = match(make_player("heuristic", game), make_player("random", game), 20, seed=3)
    assert result["score_a"] >= 0.8
    assert result["gammons"] + result["backgammons"] >= 10
    assert result["points_a_per_game"] > result["score_a"] * 2 - 1   # gammons count double
