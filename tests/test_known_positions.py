"""Hand-derived positions from the rules files."""
import pytest

from tabula.games import PositionError, get_game

SENET = get_game("senet")
UR = get_game("ur")


def senet_moves(me, opp, throw):
    code = SENET.position_from_json({"me": me, "opp": opp})
    return [(m["from"], m["to"], SENET.to_json(m["position"]), m["again"], m["over"])
            for m in SENET.legal_moves(code, throw)]


def test_senet_opening_two_has_one_move():
    moves = SENET.legal_moves(SENET.start, 2)
    assert [(m["from"], m["to"]) for m in moves] == [(9, 11)]
    assert not moves[0]["again"]
    assert SENET.to_json(moves[0]["position"]) == {"me": [2, 4, 6, 8, 10],
                                                   "opp": [1, 3, 5, 7, 11]}


def test_senet_drowning_goes_to_rebirth_or_highest_empty_below():
    # 15 empty: the piece from 26 lands on 15; a 1 throws again
    assert senet_moves([26, 3], [20], 1)[1][:4] == (26, 15, {"me": [3, 15], "opp": [20]}, True)
    # 15 and 14 taken (by either side): highest empty square below is 13
    moves = senet_moves([26, 15], [14, 1], 1)
    assert (26, 13, {"me": [13, 15], "opp": [1, 14]}, True, False) in moves


def test_senet_pieces_on_final_squares_only_bear_off_exactly():
    assert senet_moves([28], [1], 3) == [(28, 31, {"me": [1], "opp": []}, False, True)]
    assert senet_moves([29, 5], [1], 1) == [(5, 6, {"me": [6, 29], "opp": [1]}, True, False)]
    # with nothing else to move, a piece on 30 cannot go backwards: forfeit
    assert senet_moves([30], [1], 2) == []


def test_senet_no_move_passes_house_of_beauty():
    assert [m[:2] for m in senet_moves([25], [1], 2)] == [(25, 23)]  # only backwards


def test_senet_protected_pieces_and_blockades():
    # 12 and 13 protect each other: a 2 from 10 cannot take 12, moves backward
    assert [m[:2] for m in senet_moves([10], [12, 13], 2)] == [(10, 8)]
    # a blockade 12-14 cannot be passed: 11 -> 15 illegal, so 11 -> 7 backward
    assert [m[:2] for m in senet_moves([11], [12, 13, 14], 4)] == [(11, 7)]
    # a lone piece is swapped
    assert senet_moves([10], [12], 2) == [(10, 12, {"me": [10], "opp": [12]}, False, False)]


def test_ur_cannot_land_on_enemy_on_central_rosette():
    code = UR.position_from_json({"me": [5], "me_waiting": 0, "opp": [8], "opp_waiting": 0})
    assert UR.legal_moves(code, 3) == []
    code = UR.position_from_json({"me": [5], "me_waiting": 0, "opp": [7], "opp_waiting": 0})
    (move,) = UR.legal_moves(code, 2)
    assert UR.to_json(move["position"]) == {"me": [], "me_waiting": 1, "opp": [7],
                                             "opp_waiting": 0}


def test_ur_rosettes_rethrow_captures_do_not_and_bear_off_needs_exact_throw():
    code = UR.position_from_json({"me": [12, 13], "me_waiting": 1, "opp": [], "opp_waiting": 1})
    moves = {(m["from"], m["to"]): m for m in UR.legal_moves(code, 2)}
    assert set(moves) == {(0, 2), (12, 14), (13, 15)}
    assert moves[(12, 14)]["again"] and not moves[(0, 2)]["again"]
    assert not moves[(13, 15)]["again"] and not moves[(13, 15)]["over"]
    assert UR.legal_moves(code, 0) == []


@pytest.mark.parametrize("position,problem", [
    ({"me": [3, 3], "opp": [1]}, "two pieces"),
    ({"me": [1, 2, 3, 4, 5, 6], "opp": [8]}, "pieces"),
    ({"me": [27], "opp": [1]}, "27"),
    ({"me": [1], "opp": [1]}, "two pieces on square 1"),
    ({"me": [1], "opp": [2], "extra": 1}, "unknown key"),
])
def test_senet_rejects_impossible_positions(position, problem):
    with pytest.raises(PositionError, match=problem):
        SENET.position_from_json(position)


@pytest.mark.parametrize("position,problem", [
    ({"me": [15], "me_waiting": 0, "opp": [], "opp_waiting": 0}, "off the track"),
    ({"me": [6], "me_waiting": 0, "opp": [6], "opp_waiting": 0}, "shared square 6"),
    ({"me": [1], "me_waiting": 7, "opp": [], "opp_waiting": 0}, "more than pieces"),
    ({"me": [], "me_waiting": 0, "opp": []}, "lacks"),
])
def test_ur_rejects_impossible_positions(position, problem):
    with pytest.raises(PositionError, match=problem):
        UR.position_from_json(position)


def test_ur_private_squares_of_both_sides_can_share_a_number():
    UR.position_from_json({"me": [2], "me_waiting": 0, "opp": [2], "opp_waiting": 0})
