"""The doubling cube as a game's rules (games/cube.py), and a game with contact played
for money through the one session: the toy capture game under its "money" rule set
(tests/toy/capture.py), hotseat and against the computer, in the session, the terminal
and the web API. Its doubles, takes and passes are scored by the game's cube rules."""
import io

import pytest
from starlette.testclient import TestClient

from tabula.cli import main
from tabula.games import get_game
from tabula.games.cube import CENTERED, OWNED, UNAVAILABLE, Cube, CubeState
from tabula.session import (MASTER_LOOKS_AHEAD, SessionError, levels_of, shipped_model,
                            start_session)
from tabula.web import create_app
from tests.test_cube_session import finish


def test_the_cube_rules():
    cube = Cube()
    centred = CubeState()
    assert cube.may_double(centred, 0) and cube.may_double(centred, 1)
    assert cube.access(centred, 0) == CENTERED
    offered = cube.doubled(centred)
    assert not cube.may_double(offered, 0) and cube.passed(offered) == 1
    taken = cube.taken(offered, 1)
    assert taken == CubeState(2, 1, False)
    assert (cube.access(taken, 1), cube.access(taken, 0)) == (OWNED, UNAVAILABLE)
    assert cube.may_double(taken, 1) and not cube.may_double(taken, 0)
    assert cube.taken(cube.doubled(taken), 0) == CubeState(4, 0)
    # a win scores its size times the value; under Jacoby a gammon counts single while
    # the cube is centred, double once it has been turned
    assert [cube.points(centred, size) for size in (1, 2, 3)] == [1, 2, 3]
    assert cube.points(taken, 2) == 4
    jacoby = Cube(jacoby=True)
    assert [jacoby.points(centred, size) for size in (1, 2, 3)] == [1, 1, 1]
    assert jacoby.points(taken, 3) == 6


def money_game(pieces=2):
    return get_game("toycapture", pieces, "money")


def test_a_game_with_contact_declares_the_cube_and_one_without_does_not():
    assert money_game().cube == Cube() and get_game("toycapture", 2).cube is None
    assert get_game("bearoff", 3).cube == Cube() and get_game("ur", 3).cube is None


def test_hotseat_doubles_takes_redoubles_and_a_pass_scores_the_cube():
    s = start_session(money_game(), hotseat=True, seed=2)
    assert s.state()["cube"] == {"value": 1, "owner": None, "offered": False,
                                 "can_double": True}
    s.double()
    assert s.phase == "take"
    with pytest.raises(SessionError, match="must first take or pass"):
        s.roll()
    s.answer(take=True)
    assert s.cube == CubeState(2, 1) and not s.can_double
    while s.seat != 1 and not s.over:   # red throws and moves until blue is on roll
        s.roll()
        if s.throw is not None:
            s.play(0)
    assert not s.over and s.can_double   # the taker, on roll, may redouble
    s.double()
    events = s.answer(take=False)
    assert s.over and s.winner == 1 and s.points == 2   # the value before the redouble
    assert "wins 2 points" in events[-1]["text"]


def test_a_win_on_the_board_scores_the_cube_s_value():
    """Doubles taken at every chance, then played out: the winner scores the cube's
    value (the toy game has no gammons: size 1)."""
    for seed in range(5):
        s = start_session(money_game(), hotseat=True, seed=seed)
        finish(s, lambda s: "double" if s.can_double and s.cube.value < 4 else
                        "take" if s.phase == "take" else "roll" if s.phase == "throw" else 0)
        assert s.points == s.cube.value == 4, seed


def test_against_the_computer_its_doubles_wait_for_the_person_s_answer():
    """Apprentice (the heuristic, playing the cube as if it were dead) doubles when it
    is the favourite: the person must answer before anything else; a pass ends the game
    with the cube's value to the computer. The person's decisions are judged by the
    table's winning chances, the cube taken as dead, and said to be an estimate."""
    from tabula.solver.layered import solve
    from tabula.solver.table import Table
    import tempfile
    from pathlib import Path
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "money2.h5"
        solve(money_game(), path, quiet=True)
        table = Table(path)
        assert table.game.cube == Cube()   # the table says it is of the money rule set
        doubled = 0
        for seed in range(40):
            s = start_session(table.game, "apprentice", side="blue", seed=seed, table=table)
            s.computer_turns()
            if s.phase == "take":
                doubled += 1
                with pytest.raises(SessionError):
                    s.roll()
                hint = s.hint()
                assert {m["text"] for m in hint["moves"]} == {"take", "pass"}
                s.answer(take=False)
                assert s.over and s.winner == 0 and s.points == 1
                review = s.review(1)
                assert review["parts"]["cube"]["decisions"] == 1
                assert not review["exact"] and "cube taken as dead" in review["source"]
        assert doubled > 0


def test_the_terminal_plays_it_for_money(capsys, monkeypatch):
    """tabula play toycapture --rules money: two people double, take and play on to the
    end; the board says where the cube is, the end how many points were won."""
    monkeypatch.setattr("sys.stdin", io.StringIO("d\nt\n" + "r\n1\n" * 60))
    assert main(["play", "toycapture", "--rules", "money", "--pieces", "2", "--hotseat",
                 "--seed", "4"]) == 0
    text = capsys.readouterr().out
    assert "money play with the doubling cube" in text
    assert "red doubles to 2" in text and "blue takes: the cube is at 2" in text
    assert "cube at 2, owned by blue" in text
    assert "wins 2 points" in text or "wins 4 points" in text


def test_the_web_api_plays_it_for_money():
    client = TestClient(create_app(), raise_server_exceptions=False)
    listed = {g["name"]: g for g in client.get("/api/games").json()["games"]}
    assert [r["name"] for r in listed["toycapture"]["rules"]] == ["toy", "money", "setup"]
    data = client.post("/api/games", json={"game": "toycapture", "rules": "money",
                                           "pieces": 2, "hotseat": True, "seed": 3}).json()
    key = data["id"]
    assert data["state"]["cube"]["can_double"]
    late = client.post(f"/api/games/{key}/cube", json={"action": "take"})
    assert late.status_code == 409 and "no double to answer" in late.json()["error"]
    client.post(f"/api/games/{key}/cube", json={"action": "double"})
    data = client.post(f"/api/games/{key}/cube", json={"action": "pass"}).json()
    assert data["state"]["phase"] == "over" and data["state"]["points"] == 1
    assert data["events"][-1]["text"] == "red wins 1 point"
    plain = client.post("/api/games", json={"game": "toycapture", "pieces": 2,
                                            "hotseat": True}).json()
    assert "cube" not in plain["state"]
    refused = client.post(f"/api/games/{plain['id']}/cube", json={"action": "double"})
    assert refused.status_code == 400 and "without the doubling cube" in refused.json()["error"]
    # the computer plays it at apprentice; master needs a table (its search has no cube)
    versus = client.post("/api/games", json={"game": "toycapture", "rules": "money",
                                             "pieces": 2, "level": "apprentice", "seed": 1})
    assert versus.status_code == 200, versus.json()
    master = client.post("/api/games", json={"game": "toycapture", "rules": "money",
                                             "pieces": 2, "level": "master"})
    assert master.status_code == 400 and "perfect play from a table" in master.json()["error"]
    # with a network the Master would search the toy game, not the money game (no table);
    # no network plays the toy here, so the page offers the Apprentice alone
    assert levels_of(money_game(), None, network=True) == ["apprentice", "journeyman"]
    assert levels_of(get_game("toycapture", 2), None, network=True) == [
        "apprentice", "journeyman", "master"]
    playable = {r["name"]: r["playable"] for r in listed["toycapture"]["rules"]}
    assert playable["money"] == {"1": ["apprentice"], "2": ["apprentice"], "3": ["apprentice"]}


def test_backgammon_s_master_moves_by_its_search_and_plays_the_cube_by_the_network(
        monkeypatch):
    """Without a table the standard game's Master is the network looking one throw ahead
    by cubeless equity (net+search); with the cube in play its moves are its search's
    choices (never the network's money view alone) and its cube actions the network's."""
    game = get_game("backgammon", rules="standard")
    assert levels_of(game, None, network=True) == ["apprentice", "journeyman", "master"]
    s = start_session(game, "master", side="white", seed=5, model_path=shipped_model(game))
    assert s.computer.spec.startswith("net+search:") and s.level_words == MASTER_LOOKS_AHEAD
    searched = []
    choose = s.computer.choose
    monkeypatch.setattr(s.computer, "choose", lambda *a, **k: searched.append(1) or choose(*a))
    monkeypatch.setattr(s.computer, "money_move", lambda *a: pytest.fail("a money-view move"))
    for _ in range(12):
        s.computer_turns()
        if s.phase == "take":   # the computer doubled: the network's cube action
            s.answer(take=True)
            s.computer_turns()
        if s.over:
            break
        s.roll()
        if s.throw is not None:
            s.play(0)
    assert len(searched) >= 5 and s.cube is not None
