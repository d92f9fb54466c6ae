"""Property-based checks (hypothesis): any legal position survives JSON, the
packed code, rank and unrank, and every legal move keeps the position legal."""
from hypothesis import given, settings
from hypothesis import strategies as st

from tabula.games import get_game
from tabula.games.game import layer_pair

UR = get_game("ur")
SENET = get_game("senet")
SHARED = set(range(5, 13))


@st.composite
def ur_positions(draw):
    me = draw(st.sets(st.integers(1, 14), max_size=7))
    free = [s for s in range(1, 15) if not (s in SHARED and s in me)]
    opp = draw(st.sets(st.sampled_from(free), max_size=7))
    return {"me": sorted(me), "me_waiting": draw(st.integers(0, 7 - len(me))),
            "opp": sorted(opp), "opp_waiting": draw(st.integers(0, 7 - len(opp)))}


@st.composite
def senet_positions(draw):
    squares = [s for s in range(1, 31) if s != 27]
    both = draw(st.lists(st.sampled_from(squares), min_size=2, max_size=10, unique=True))
    split = draw(st.integers(max(1, len(both) - 5), min(5, len(both) - 1)))
    return {"me": sorted(both[:split]), "opp": sorted(both[split:])}


def check_position(game, position):
    code = game.position_from_json(position)
    assert game.to_json(code) == position
    layer = game.layer_of(code)
    assert game.unrank(layer, game.rank(code)) == code
    assert 0 <= game.rank(code) < game.layer_size(*layer_pair(layer))
    for throw in game.throws:
        for move in game.legal_moves(code, int(throw)):
            after = game.to_json(move["position"])
            if not move["over"]:  # a finished game has no position to type in
                assert game.position_from_json(after) == move["position"]


@settings(max_examples=300, deadline=None)
@given(ur_positions())
def test_ur_positions_round_trip(position):
    check_position(UR, position)


@settings(max_examples=300, deadline=None)
@given(senet_positions())
def test_senet_positions_round_trip(position):
    check_position(SENET, position)
