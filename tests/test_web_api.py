"""The web app's JSON API (tabula/web.py): games played through it, and bad requests
answered with a 4xx and a one-line JSON error, never a 500."""
import re

import pytest
from starlette.testclient import TestClient

from tabula.web import create_app


@pytest.fixture(scope="module")
def client(tables):
    return TestClient(create_app(tables[("ur", 3)]), raise_server_exceptions=False)


def new(client, **request):
    response = client.post("/api/games", json=request)
    assert response.status_code == 200, response.text
    return response.json()


def play_out(client, key, data, pick=0, limit=2000):
    """Throw and move (always listed move `pick`), and take every double, until the
    game ends."""
    events = list(data["events"])
    for _ in range(limit):
        state = data["state"]
        if state["phase"] == "over":
            return data, events
        if state["phase"] == "throw":
            data = client.post(f"/api/games/{key}/throw").json()
        elif state["phase"] == "take":
            data = client.post(f"/api/games/{key}/cube", json={"action": "take"}).json()
        else:
            data = client.post(f"/api/games/{key}/move",
                               json={"move": state["moves"][min(pick, len(state["moves"]) - 1)]
                                     ["index"]}).json()
        events += data["events"]
    raise AssertionError("the game did not end")


def test_a_whole_game_against_the_apprentice_with_its_review(client):
    data = new(client, game="ur", pieces=3, level="apprentice", seed=5)
    assert data["state"]["phase"] == "throw" and data["layout"]["rows"] == 3
    assert data["judge"] == "exact, from the table"
    data, events = play_out(client, data["id"], data)
    kinds = {e["kind"] for e in events}
    assert {"throw", "move", "win"} <= kinds
    assert any("captures" in e["text"] for e in events)
    review = data["review"][0]
    assert review["side"] == "light" and review["exact"]
    assert 0 <= review["error_rate"] <= 1 and len(review["worst"]) <= 3
    assert len(review["chances"]) == data["state"]["turn"] + 1
    assert review["chances"][-1] in (0.0, 1.0)
    frames = data["replay"]   # every throw, to step through, numbered as the review is
    assert [f["number"] for f in frames] == list(range(1, data["state"]["turn"] + 1))
    assert frames[0]["board"]["cells"] == {} and frames[0]["side"] == "light"
    labels = {d["label"] for d in review["judged"]}
    assert labels <= {"best", "inaccuracy", "mistake", "blunder"} and len(review["judged"]) \
        == review["decisions"]
    for d in review["judged"]:
        lower = dict(review["thresholds_points"]).get(d["label"], 0.0)
        assert d["loss_points"] >= lower
        assert frames[d["turn"] - 1]["seat"] == 0 and frames[d["turn"] - 1]["played"] == \
            d["played"]
    assert review["accuracy"] == pytest.approx(1 - review["error_rate"])
    winner, board = data["state"]["winner"], data["state"]["board"]
    assert board["off"][winner] == 3 and board["off"][1 - winner] < 3


def test_hints_rank_the_moves(client):
    data = new(client, game="ur", pieces=3, level="master", seed=1, side="dark")
    key = data["id"]
    assert data["events"] and data["state"]["seat"] == 1   # the computer threw first
    for _ in range(50):
        if data["state"]["phase"] == "move" and len(data["state"]["moves"]) > 1:
            break
        data = (client.post(f"/api/games/{key}/throw").json()
                if data["state"]["phase"] == "throw" else
                client.post(f"/api/games/{key}/move", json={"move": 0}).json())
    hint = client.get(f"/api/games/{key}/hint").json()
    chances = [m["chance"] for m in hint["moves"]]
    assert chances == sorted(chances, reverse=True) and hint["moves"][0]["loss_points"] == 0
    assert hint["exact"] and all(m["loss_points"] >= 0 for m in hint["moves"])


def test_bad_requests_get_a_4xx_and_one_line(client):
    key = new(client, game="ur", pieces=3, level="apprentice", seed=2)["id"]
    bad = [client.post("/api/games", json={"game": "chess"}),
           client.post("/api/games", json={"game": "ur", "pieces": 99}),
           client.post("/api/games", json={"game": "ur", "pieces": "two"}),
           client.post("/api/games", json={"game": "ur", "side": "white"}),
           client.post("/api/games", json={"game": "ur", "level": "god"}),
           client.post("/api/games", json={"game": "ur", "seed": -1}),
           client.post("/api/games", json={"game": ["ur"]}),        # was a 500
           client.post("/api/games", json={"game": "ur", "level": {"a": 1}}),   # was a 500
           client.post("/api/games", json={"game": "ur", "rules": 7}),
           client.post("/api/games", json={"game": "u" * 5000}),
           client.post("/api/games", content=b"{not json"),
           client.post("/api/games", content=b"[1, 2]"),
           client.post(f"/api/games/{key}/move", json={"move": 0}),       # before the throw
           client.get("/api/games/nope"),
           client.get("/api/rules/chess"),
           client.get(f"/api/games/{key}/hint")]
    client.post(f"/api/games/{key}/throw")
    bad += [client.post(f"/api/games/{key}/move", json={"move": 99}),
            client.post(f"/api/games/{key}/move", json={"move": "1"}),
            client.post(f"/api/games/{key}/move", json={}),
            client.post(f"/api/games/{key}/move", content=b"\xff\xfe")]
    for response in bad:
        assert 400 <= response.status_code < 500, (response.status_code, response.text)
        error = response.json()["error"]
        assert error and "\n" not in error and len(error) < 300
    # a strength the variant cannot have, said as the page says it (no command-line flags)
    missing = client.post("/api/games", json={"game": "ur", "pieces": 2, "level": "journeyman"})
    assert missing.status_code == 400 and missing.json()["error"] == (
        "no network plays ur with 2 pieces a side: choose Apprentice, or 7 pieces a side")
    long_id = client.get("/api/games/" + "x" * 10_000)   # not echoed at length
    assert long_id.status_code == 404 and len(long_id.text) < 300


def test_a_finished_game_takes_no_move(client):
    data = new(client, game="senet", pieces=1, hotseat=True, seed=3)
    data, _ = play_out(client, data["id"], data)
    for response in (client.post(f"/api/games/{data['id']}/throw"),
                     client.post(f"/api/games/{data['id']}/move", json={"move": 0})):
        assert response.status_code == 409 and "over" in response.json()["error"]


def test_two_games_in_two_tabs_do_not_interfere(client):
    a = new(client, game="ur", pieces=3, level="apprentice", seed=7)
    b = new(client, game="senet", pieces=4, level="journeyman", seed=7)
    assert a["id"] != b["id"]
    client.post(f"/api/games/{a['id']}/throw")
    after = client.get(f"/api/games/{b['id']}").json()["state"]
    assert after["game"] == "senet" and after["phase"] == "throw" and after["turn"] == 0
    assert client.get(f"/api/games/{a['id']}").json()["state"]["turn"] == 1


def test_pages_and_assets_are_served_locally(client):
    page = client.get("/")
    assert page.status_code == 200 and "/static/app.js" in page.text
    assert "http" not in page.text.replace("http-equiv", "")   # nothing from elsewhere
    assert client.get("/static/app.js").status_code == 200
    assert 'rel="icon" href="/static/favicon.svg"' in page.text    # a favicon, served here
    assert client.get("/static/favicon.svg").status_code == 200
    rules = client.get("/rules/senet")
    assert rules.status_code == 200 and re.search(r"<h1[^>]*>Senet", rules.text)
    assert "<table>" in rules.text
    assert 'id="masters-and-blitz"' in client.get("/rules/ur").text   # linkable sections
    # CommonMark: a list right after its paragraph is a list (Senet's special squares)
    assert re.search(r"Special squares:</p>\s*<ul>\s*<li><strong>26", rules.text)
    assert "<title>Rules of Senet (Kendall&#x27;s rules) - tabula</title>" in rules.text
    games = client.get("/api/games").json()
    ur = next(g for g in games["games"] if g["name"] == "ur")
    finkel = ur["rules"][0]
    assert finkel["name"] == "finkel" and finkel["table_pieces"] == 3
    assert 7 in finkel["shipped_pieces"] and finkel["default_pieces"] == 7


def test_a_rule_set_and_the_capture_toy_are_played_through_the_api(tmp_path):
    """The request names the rule set; the toy capture game (registered only in the
    tests) plays through the same app with no code of its own in it."""
    client = TestClient(create_app(), raise_server_exceptions=False)
    listed = {g["name"]: g for g in client.get("/api/games").json()["games"]}
    rules = {r["name"]: r for r in listed["ur"]["rules"]}
    assert listed["ur"]["rules"][0]["name"] == "finkel" and rules["tiny"]["default_pieces"] == 2
    assert rules["blitz"]["default_pieces"] == 5 and rules["tiny"]["table_pieces"] is None
    assert "toycapture" in listed
    # each game's fields come from its parameters (games.parameters): the toy's pieces
    # range and rule sets, and EinStein's other names for them on the command line
    pieces = {p["name"]: p for p in listed["toycapture"]["parameters"]}["pieces"]
    assert (pieces["type"], pieces["least"], pieces["most"]) == ("int", 1, 3)
    einstein = {p["name"]: p for p in listed["einstein"]["parameters"]}
    assert einstein["rules"]["choices"] == ["5x5", "4x4", "3x3", "2x2"]
    assert (einstein["rules"]["flags"], einstein["pieces"]["flags"]) == (["board"], ["cubes"])
    data = new(client, game="ur", rules="tiny", level="apprentice", seed=2)
    assert data["state"]["pieces"] == 2         # the rule set's own default
    data, events = play_out(client, data["id"], data)
    assert any(e["kind"] == "win" for e in events)
    bad = client.post("/api/games", json={"game": "ur", "rules": "nope"})
    assert bad.status_code == 400 and "no rule set 'nope'" in bad.json()["error"]
    data = new(client, game="toycapture", pieces=2, level="apprentice", seed=3)
    assert data["layout"]["rows"] == 3
    data, events = play_out(client, data["id"], data)
    assert data["state"]["phase"] == "over"


@pytest.mark.parametrize("rules,pieces", [("masters", 7), ("blitz", 5)])
def test_masters_and_blitz_play_at_every_level_with_their_shipped_networks(rules, pieces):
    """The shipped networks (models/ur-RULESPIECES.onnx) play and judge each rule set
    at the three strengths; the layout draws the rule set's path."""
    client = TestClient(create_app(), raise_server_exceptions=False)
    listed = next(g for g in client.get("/api/games").json()["games"] if g["name"] == "ur")
    entry = next(r for r in listed["rules"] if r["name"] == rules)
    assert entry["shipped_pieces"] == [pieces] and entry["default_pieces"] == pieces
    for level in ("apprentice", "journeyman", "master"):
        data = new(client, game="ur", rules=rules, level=level, side="dark", seed=4)
        assert data["state"]["pieces"] == pieces and data["judge"] is not None
        assert [len(path) for path in data["layout"]["paths"]] == [16, 16]
        assert data["events"][0]["kind"] == "throw"   # the computer, light, opened


def test_games_share_one_open_network_per_model_file(monkeypatch):
    """Each Journeyman or Master game used to open its network again (an ONNX session
    and a hash of the file each: the server's memory grew with every game); now a
    file is opened once, whatever the number of games."""
    from tabula.runtime import model_file
    opened = []
    real = model_file.OnnxValueModel.__init__

    def counting(self, path, *args, **kwargs):
        opened.append(str(path))
        real(self, path, *args, **kwargs)
    monkeypatch.setattr(model_file.OnnxValueModel, "__init__", counting)
    client = TestClient(create_app(), raise_server_exceptions=False)
    for seed in range(12):
        new(client, game="ur", level=("journeyman", "master")[seed % 2], seed=seed)
    assert len(opened) == 1 and opened[0].endswith("ur7.onnx"), opened


def test_a_client_that_leaves_mid_body_is_one_log_line(caplog):
    """A body that never arrives (the client dropped) was a traceback in the server's
    log; now it is one line, and the answer nobody reads is a 400, not a 500."""
    import asyncio
    import logging
    sent = []

    async def receive():
        return {"type": "http.disconnect"}

    async def send(message):
        sent.append(message)
    scope = {"type": "http", "method": "POST", "path": "/api/games", "raw_path": b"/api/games",
             "headers": [(b"content-type", b"application/json"), (b"content-length", b"99")],
             "query_string": b"", "http_version": "1.1", "scheme": "http", "root_path": "",
             "server": ("testserver", 80), "client": ("testclient", 5000)}
    with caplog.at_level(logging.INFO, logger="tabula.web"):
        asyncio.run(create_app()(scope, receive, send))
    said = [r.getMessage() for r in caplog.records if r.name == "tabula.web"]
    assert said == ["POST /api/games: the client left before its request body arrived"]
    assert not [r for r in caplog.records if r.exc_info]
    assert sent[0]["status"] == 400


def test_undo_takes_back_the_last_move_and_the_computer_s_turns(client):
    """Against the computer a person takes back their last move: the position, the
    throw and the legal moves are those it was made from, the decisions judged and the
    throws numbered as before it; between two people, or before any move, nothing to
    take back is a 409 in one line."""
    data = new(client, game="ur", pieces=3, level="apprentice", seed=5, side="light")
    key = data["id"]
    assert not data["state"]["can_undo"]
    assert client.post(f"/api/games/{key}/undo").status_code == 409
    before = None
    for _ in range(200):
        state = data["state"]
        if state["phase"] == "over":
            break
        if state["phase"] == "throw":
            data = client.post(f"/api/games/{key}/throw").json()
            continue
        before = (state, client.get(f"/api/games/{key}/review").json())
        data = client.post(f"/api/games/{key}/move", json={"move": len(state["moves"]) - 1}
                           ).json()
        if data["state"]["phase"] != "over" and data["state"]["turn"] > before[0]["turn"]:
            break   # the computer played in between
    assert data["state"]["can_undo"]
    undone = client.post(f"/api/games/{key}/undo").json()
    assert undone["events"][0]["kind"] == "undo"
    assert undone["events"][0]["text"] == f"you (light) take back the move of throw " \
                                          f"{before[0]['turn']}"
    state, review = before
    for field in ("board", "throw", "moves", "turn", "seat", "phase"):
        assert undone["state"][field] == state[field], field
    again = client.get(f"/api/games/{key}/review").json()
    assert again == review
    hotseat = new(client, game="ur", pieces=3, hotseat=True, seed=1)
    key = hotseat["id"]
    client.post(f"/api/games/{key}/throw")
    moves = client.get(f"/api/games/{key}").json()["state"]["moves"]
    if moves:
        client.post(f"/api/games/{key}/move", json={"move": 0})
    refused = client.post(f"/api/games/{key}/undo")
    assert refused.status_code == 409 and "nothing to take back" in refused.json()["error"]


def test_a_move_says_where_it_sent_the_other_side_s_piece(client):
    """For the page to show captures and swaps on the board: an Ur capture sends the
    piece to its side's waiting pool, a Senet swap to the square the mover came from;
    a move that sends nothing says so."""
    for game, pieces, words in (("ur", 3, "captures the piece on"), ("senet", 3, "swaps with")):
        data = new(client, game=game, pieces=pieces, level="apprentice", seed=3)
        _, events = play_out(client, data["id"], data)
        moves = [e for e in events if e["kind"] == "move"]
        sending = [e for e in moves if words in e["text"]]
        assert sending, game
        for e in sending:
            sent, other = e["move"]["sent"], 1 - e["seat"]
            assert sent["from_cell"] == e["move"]["to_cell"]
            assert sent["to_cell"] == (f"wait{other}" if game == "ur" else e["move"]["from_cell"])
        assert all(e["move"]["sent"] is None for e in moves if e not in sending
                   and "goes back" not in e["text"])


def test_an_einstein_set_up_is_chosen_through_the_api():
    """A game whose sides set up lists how a set-up is written; the request's set-up
    is the person's (issue 65: the API refused it), a wrong one is one line."""
    from tabula.games import get_game
    from tabula.session import start_session
    client = TestClient(create_app(), raise_server_exceptions=False)
    listed = {g["name"]: g for g in client.get("/api/games").json()["games"]}
    rules = {r["name"]: r for r in listed["einstein"]["rules"]}
    assert "once each" in rules["3x3"]["setup"] and listed["ur"]["rules"][0]["setup"] is None
    # the piece counts each rule set takes, each with the levels that can play it here
    # (issue 65: Journeyman and Master were offered where no network plays)
    assert rules["3x3"]["playable"] == {"1": ["apprentice"], "2": ["apprentice"],
                                        "3": ["apprentice"]}
    every = ["apprentice", "journeyman", "master"]
    assert {p: rules["5x5"]["playable"][p] for p in "346"} == {
        "3": every, "4": ["apprentice"], "6": every}
    data = new(client, game="einstein", rules="3x3", pieces=3, level="apprentice",
               side="red", seed=1, setup="312")
    game = get_game("einstein", 3, "3x3")
    assert data["state"]["board"] == start_session(game, "apprentice", "red", seed=1,
                                                   setup="312").board()
    assert data["state"]["board"] != start_session(game, "apprentice", "red", seed=1,
                                                   setup="123").board()
    assert data["layout"]["colours"] and any(c["mark"] == "goal" for c in data["layout"]["cells"])
    bad = client.post("/api/games", json={"game": "einstein", "rules": "3x3", "pieces": 3,
                                          "level": "apprentice", "setup": "3124"})
    assert bad.status_code == 400 and "once each" in bad.json()["error"]
    none = client.post("/api/games", json={"game": "ur", "level": "apprentice", "setup": "12"})
    assert none.status_code == 400 and "do not arrange" in none.json()["error"]


def test_a_large_body_is_refused_before_it_is_read():
    """A body over the limit is refused by its Content-Length, unread, and one without a
    length as soon as the limit is passed (issue 65: 400 MB were read first)."""
    import asyncio
    from tabula.web import MAX_BODY

    def post(headers):
        received, sent = [], []

        async def receive():   # a body that never ends, 4 KB at a time
            received.append(1)
            return {"type": "http.request", "body": b" " * 4096, "more_body": True}

        async def send(message):
            sent.append(message)
        scope = {"type": "http", "method": "POST", "path": "/api/games",
                 "raw_path": b"/api/games", "headers": headers, "query_string": b"",
                 "http_version": "1.1", "scheme": "http", "root_path": "",
                 "server": ("testserver", 80), "client": ("testclient", 5000)}
        asyncio.run(create_app()(scope, receive, send))
        return sent[0]["status"], len(received)
    assert post([(b"content-length", b"400000000")]) == (413, 0)
    assert post([(b"content-length", b"4" * 30)]) == (413, 0)
    status, chunks = post([(b"transfer-encoding", b"chunked")])
    assert status == 413 and chunks == MAX_BODY // 4096 + 1


def test_a_stopped_server_s_port_is_free_at_once(tmp_path):
    """A port whose last connection waits out TIME-WAIT is free to `tabula serve` again
    at once (issue 65: 'Address already in use' for 30 s)."""
    import socket
    from tabula.commands.serve import check_port
    with socket.socket() as listener:
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.bind(("127.0.0.1", 0))
        listener.listen()
        port = listener.getsockname()[1]
        client = socket.create_connection(("127.0.0.1", port))
        accepted, _ = listener.accept()
        accepted.close()   # the server's side closes first: its port enters TIME-WAIT
        client.close()
    check_port("127.0.0.1", port)
    with socket.socket() as busy:   # a port in use is still refused, in one line
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        with pytest.raises(Exception, match="cannot listen on 127.0.0.1"):
            check_port("127.0.0.1", busy.getsockname()[1])


def test_the_server_makes_every_game_ready_before_it_says_so():
    """tabula serve lets every rule set's default variant choose at every level it
    offers before it says it is ready (issue 65: a first Master reply took 25 s with
    nothing on the screen); a line for each. benchmarks/bench_first_reply.py times the
    first replies after it."""
    from tabula.games import GAMES, rule_sets
    said = []
    client = TestClient(create_app(say=said.append), raise_server_exceptions=False)
    variants = sum(len(rule_sets(name)) for name in GAMES)
    assert len(said) == variants and all(line.endswith(" s)") for line in said)
    assert "ur(rules=finkel,pieces=7) ready" in said[0]
    assert client.get("/api/games").status_code == 200


def test_a_standard_backgammon_game_through_the_api(client):
    """The standard game's positions need two-part codes (games/backgammon_standard.py);
    what the page gets is JSON all the same, a whole game long, against the Master (no
    table: the network looking one throw ahead, the cube by the network)."""
    listed = {g["name"]: g for g in client.get("/api/games").json()["games"]}
    rules = {r["name"]: r for r in listed["backgammon"]["rules"]}
    assert rules["standard"]["playable"] == {"15": ["apprentice", "journeyman", "master"]}
    data = new(client, game="backgammon", rules="standard", level="master", seed=2)
    assert data["state"]["pieces"] == 15 and data["state"]["board"]["stacks"]["p6"] == 5
    data, events = play_out(client, data["id"], data)
    assert {"throw", "move", "win"} <= {e["kind"] for e in events}
    board = data["state"]["board"]
    assert board["off"][data["state"]["winner"]] == 15
