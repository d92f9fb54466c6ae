"""Money games with the doubling cube, played through the one session (tabula/session.py)
by the game's cube rules (games/cube.py): the computer's cube actions, hints and the
review scored in equity by the table, and the web API's cube action."""
import numpy as np
import pytest
from starlette.testclient import TestClient

from tabula.eval.equities import Equities, double_loss, take_loss
from tabula.games import get_game
from tabula.games.cube import UNAVAILABLE
from tabula.session import Session, SessionError, start_session
from tabula.solver.race_table import RaceTable, solve_race
from tabula.web import create_app
from tests.test_web_api import play_out


@pytest.fixture(scope="module")
def table(tmp_path_factory):
    out = tmp_path_factory.mktemp("cube") / "bearoff4.h5"
    solve_race(get_game("bearoff", 4), out, quiet=True)
    return RaceTable(out)


def hotseat(table, seed) -> Session:
    return start_session(table.game, hotseat=True, seed=seed, table=table)


def finish(session, choose):
    """Play to the end; choose(session) -> 'double', 'take', 'pass', 'roll' or a move."""
    for _ in range(500):
        if session.over:
            return
        action = choose(session)
        if action == "double":
            session.double()
        elif action in ("take", "pass"):
            session.answer(action == "take")
        elif action == "roll":
            session.roll()
        else:
            session.play(action)
    raise AssertionError("the game did not end")


def by_hint(session):
    """The best choice by the table, as the hint ranks it."""
    if session.phase == "throw" and not session.can_double:
        return "roll"
    best = session.hint()["moves"][0]["text"]
    if session.phase == "move":
        return next(m for m in range(len(session.moves)) if session.moves[m]["text"] == best)
    return {"no double": "roll", "pass": "pass", "take": "take"}.get(best, "double")


def test_the_cube_changes_hands_on_a_take_and_a_pass_ends_the_game(table):
    s = hotseat(table, seed=1)
    assert s.phase == "throw" and s.can_double and s.cube.value == 1 and s.cube.owner is None
    s.double()
    assert s.phase == "take" and not s.can_double
    with pytest.raises(SessionError, match="must first take or pass"):
        s.roll()
    s.answer(take=True)
    assert (s.cube.value, s.cube.owner, s.phase) == (2, 1, "throw") and not s.can_double
    s.roll()
    if s.throw is not None:
        s.play(0)
    if not s.over:   # now the taker, on roll, may redouble
        assert s.seat == 1 and s.can_double
        s.double()
        events = s.answer(take=False)
        assert s.over and s.winner == 1 and s.points == 2
        assert events[-1]["points"] == 2 and "wins 2 points" in events[-1]["text"]


@pytest.mark.parametrize("turns", [0, 1, 2, 3])
def test_the_board_after_a_pass_is_the_board_played(table, turns):
    """A pass ends the game on the board the double was made on: the sides' checkers,
    borne-off counts and pips stay where they were (issue 65: they were swapped)."""
    s = hotseat(table, seed=6)
    for _ in range(turns):
        s.roll()
        if s.throw is not None:
            s.play(0)
    before, doubler = s.board(), s.seat
    s.double()
    assert s.board() == before
    s.answer(take=False)
    assert s.over and s.winner == doubler and s.board() == before
    last = s.replay()[-1]   # the pass is the replay's last step, on that board
    assert (last["throw"], last["board"]) == (None, before)
    assert last["cube"] == f"{s.side(doubler)} doubled to 2, {s.side(1 - doubler)} passed"


def test_the_board_after_a_winning_move_shows_the_move_made(table):
    """The last move's board: the winner has borne off every checker."""
    s = hotseat(table, seed=2)
    finish(s, lambda s: "roll" if s.phase == "throw" else 0)
    pieces = s.game.pieces
    assert s.board()["off"][s.winner] == pieces and s.board()["off"][1 - s.winner] < pieces


def test_playing_the_hint_gives_nothing_away_and_a_wrong_cube_costs_the_table_s_loss(table):
    """Both seats follow the hint (the table's best): every decision best, nothing lost.
    Then doubling at every chance: each double's recorded loss is eval/cube_regret's
    double_loss of the table's equities, at the cube's value."""
    for seed in range(4):
        s = hotseat(table, seed)
        finish(s, by_hint)
        for seat in (0, 1):
            review = s.review(seat)
            assert review["points_given_away"] == pytest.approx(0, abs=1e-9)
            assert review["accuracy"] == 1.0
        assert s.points in (1, 2, 4, 8, 16)
    checked = 0
    for seed in range(6):
        s = hotseat(table, seed)
        cubes = {}

        def eager(session):
            if session.phase == "throw" and session.can_double:
                cubes[len(session.decisions)] = (session.code, session.cube_state(),
                                                 session.cube.value)
                return "double"
            return "take" if session.phase == "take" else by_hint(session)
        finish(s, eager)
        for index, (code, state, cube) in cubes.items():
            e = Equities(table.values(np.array([code])), table.value_names)
            expected = cube * double_loss(e.no_double(state)[0], e.no_double(UNAVAILABLE)[0],
                                          True)
            assert s.decisions[index].loss == pytest.approx(expected, abs=1e-12)
            taker = s.decisions[index + 1]   # the answer, judged by take_loss
            assert taker.loss == pytest.approx(
                cube * take_loss(e.no_double(UNAVAILABLE)[0], True), abs=1e-12)
            checked += 1
    assert checked > 0


def test_the_computer_doubles_and_the_person_must_answer(table):
    """Against perfect play: some seed makes the computer double; the person must then
    take or pass before anything else, and a take gives the person the cube."""
    for seed in range(200):
        s = start_session(table.game, "master", side="black", seed=seed, table=table)
        events = s.computer_turns()
        while not s.over and s.phase != "take":
            if s.phase == "throw":
                events += s.roll()
            if s.phase == "move":
                events += s.play(by_hint(s))
            events += s.computer_turns()
        if s.phase == "take":
            assert any(e["kind"] == "double" for e in events)
            with pytest.raises(SessionError):
                s.roll()
            cube = s.cube.value
            s.answer(take=True)
            assert s.cube.owner == 1 and s.cube.value == 2 * cube
            return
    pytest.fail("perfect play never doubled in 200 games")


def test_undo_puts_the_cube_back(table):
    """A move taken back after the computer's turns puts back the cube as it was then,
    a double of the computer's waiting for an answer included."""
    undone = set()
    for seed in range(60):
        s = start_session(table.game, "master", seed=seed, table=table)
        while not s.over:
            if s.phase == "take":
                s.answer(take=True)
            s.computer_turns()
            if s.over or s.phase == "take":
                continue
            s.roll()
            if s.throw is None:
                continue
            before = (s.code, s.cube, s.throw)
            s.play(0)
            s.computer_turns()
            if s.over:
                break
            undone.add("double waiting" if s.cube.offered else "cube taken"
                       if s.cube.value > 1 else "plain")
            s.undo()
            assert (s.code, s.cube, s.throw) == before
            assert s.phase == "move"
            s.play(0)
    assert "double waiting" in undone


def test_the_review_counts_checker_play_and_the_cube_apart(table):
    s = hotseat(table, seed=3)
    s.double()
    s.answer(take=False)   # a pass: the doubler wins 1 point
    assert s.over and s.points == 1
    review = s.review(1)
    assert review["parts"]["cube"]["decisions"] == 1 and review["parts"]["checker"][
        "decisions"] == 0
    worst = review["judged"][0]
    assert worst["throw"] is None and worst["played"] == "pass"
    assert "points of equity" in review["unit"]


def test_the_web_app_plays_a_bear_off_with_the_cube(table):
    client = TestClient(create_app(table), raise_server_exceptions=False)
    listed = {g["name"]: g for g in client.get("/api/games").json()["games"]}
    playable = listed["bearoff"]["rules"][0]["playable"]   # a table of 4, a network of 10
    assert (playable["4"], playable["10"]) == (["apprentice", "master"],
                                               ["apprentice", "journeyman"])
    assert list(playable) == [str(p) for p in range(1, 16)]
    tableless = TestClient(create_app(), raise_server_exceptions=False)
    listed = {g["name"]: g for g in tableless.get("/api/games").json()["games"]}
    assert listed["bearoff"]["rules"][0]["playable"]["4"] == ["apprentice"]
    refused = tableless.post("/api/games", json={"game": "bearoff", "pieces": 4,
                                                 "level": "master"})
    assert refused.status_code == 400 and "perfect play from a table" in refused.json()["error"]
    data = client.post("/api/games", json={"game": "bearoff", "pieces": 4, "level": "master",
                                           "seed": 7}).json()
    key, state = data["id"], data["state"]
    assert state["cube"] == {"value": 1, "owner": None, "offered": False, "can_double": True}
    assert data["layout"]["dice"]["faces"] == 6 and len(state["board"]["pips"]) == 2
    hint = client.get(f"/api/games/{key}/hint").json()
    assert {m["text"] for m in hint["moves"]} == {"no double", "double to 2"}
    data = client.post(f"/api/games/{key}/cube", json={"action": "double"}).json()
    kinds = [e["kind"] for e in data["events"]]
    assert kinds[:2] in (["double", "take"], ["double", "pass"])
    bad = client.post(f"/api/games/{key}/cube", json={"action": "double"})
    assert bad.status_code == 409 and "no double now" in bad.json()["error"]
    data, _ = play_out(client, key, data)
    assert data["state"]["points"] >= 1 and data["review"][0]["parts"]["cube"]["decisions"] >= 1
    assert all(isinstance(f["throw"], int) for f in data["replay"])
    ur = client.post("/api/games", json={"game": "ur", "pieces": 3, "level": "apprentice"})
    wrong = client.post(f"/api/games/{ur.json()['id']}/cube", json={"action": "take"})
    assert wrong.status_code == 400 and "without the doubling cube" in wrong.json()["error"]
    odd = client.post(f"/api/games/{key}/cube", json={"action": "beaver"})
    assert odd.status_code == 400
