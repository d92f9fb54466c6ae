"""`tabula serve`: the games in a browser. A Starlette app: a JSON API over
tabula/session.py (the one implementation of the rules is the Python one) and one
page of plain HTML, CSS and JavaScript, every asset served from tabula/static/.

API (every error is a 4xx with {"error": "one line"}):
  GET  /api/games                      the games, their sides, rule sets (each with its
                                       default pieces, those a network or the table
                                       plays, and the levels it is played at)
  POST /api/games                      a new game: {"game", "rules", "pieces", "level",
                                       "side", "hotseat", "seed", "setup", "position": a
                                       position to start from, as the game writes one}
                                       -> {"id", "state", "events", "layout"}
  GET  /api/games/ID                   its state
  POST /api/games/ID/throw             the player to move throws
  POST /api/games/ID/move              {"move": index} of the listed legal moves
  POST /api/games/ID/cube              {"action": "double", "take" or "pass"}, in a game
                                       played with the doubling cube (Game.cube)
  GET  /api/games/ID/hint              the moves ranked, with winning chances and losses
                                       (with the cube: equities, or the cube's action; from
                                       a win/loss/draw table, each move's result and plies)
  POST /api/games/ID/undo              take back your last move (and the computer's turns
                                       after it), to move again from the same throw
  GET  /api/games/ID/review            how each person played, and every throw to step
                                       through (also sent when it ends)
  GET  /api/rules/GAME                 the rules (docs/rules/GAME.md) as HTML
  GET  /rules/GAME                     the same as a page
After a person's throw or move the computer plays its turns at once; the answer
lists every event (throws, moves with what they did, passes, the win or a draw) in
order. In a game without dice (checkers) nobody throws: the moves are there at once.
"""
import logging
import secrets
import threading
import time
import html
from collections import OrderedDict
from functools import cache
from pathlib import Path

from pydantic_core import from_json
from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import ClientDisconnect, Request
from starlette.responses import FileResponse, HTMLResponse, JSONResponse
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from tabula.games import GAMES, PositionError, get_game, parameters, pieces_word, rule_sets
from tabula.infra import markdown
from tabula.infra.errors import TabulaError
from tabula.infra.schemas import MAX_NAME, CubeRequest, MoveRequest, NewGameRequest, check

from .kit import Networks, kit_for
from .session import (LEVELS, NoNetworkError, Session, SessionError, levels_of, warm_up,
                      playable_pieces, shipped_pieces, start_session)

STATIC = Path(__file__).resolve().parent / "static"
MAX_SESSIONS = 1000   # the oldest game is forgotten beyond this
MAX_BODY = 10_000     # bytes of a request body
LOG = logging.getLogger("tabula.web")


class Games:
    """The games being played, each with its lock (one request at a time per game)."""

    def __init__(self, table=None, models=None):
        self.table, self.networks = table, Networks(models)
        self.sessions = OrderedDict()
        self.lock = threading.Lock()

    def new(self, request: dict) -> tuple[str, Session]:
        asked = check(NewGameRequest, request, "the request", TabulaError)
        kit = kit_for(asked.game, asked.pieces, asked.rules, self.table, self.networks)
        session = self._start(kit.game, asked, kit.table, kit.model_path, kit.model)
        session.lock = threading.Lock()
        key = secrets.token_hex(8)
        with self.lock:
            self.sessions[key] = session
            while len(self.sessions) > MAX_SESSIONS:
                self.sessions.popitem(last=False)
        return key, session

    def warm_up(self, say):
        """Every rule set's default variant, at every level it is offered at here, made
        ready before the server says it is (session.warm_up); say(text): a line each."""
        for name in GAMES:
            for rules in rule_sets(name):
                started = time.monotonic()
                kit = kit_for(name, None, rules, self.table, self.networks)
                warm_up(kit.game, kit.table, kit.model_path, kit.model)
                say(f"  {kit.game.describe()} ready ({time.monotonic() - started:.1f} s)")

    @staticmethod
    def _start(game, asked, table, model_path, model) -> Session:
        try:
            position, seat = None, 0
            if asked.position is not None:
                position, seat = game.start_from(asked.position)
            elif asked.board is not None:
                if game.presentation.from_view is None:
                    raise TabulaError(f"{game.name} positions are not set up on the board")
                board, seat = asked.board, asked.board.seat
                position = game.in_play(game.presentation.from_view(board.cells, board.labels,
                                                                    seat))
            return start_session(game, asked.level, asked.side, asked.hotseat, asked.seed,
                                 table, model_path, model, asked.setup, position, seat)
        except NoNetworkError as err:   # in the page's words, not the command line's
            pieces = pieces_word(game.name)
            raise TabulaError(f"no network plays {game.name} with {game.pieces} {pieces} a side: "
                              "choose Apprentice" + (", or Master (perfect play)" if table else "")
                              + (f", or {err.others[-1]} {pieces} a side" if err.others else "")
                              ) from None

    def get(self, key: str) -> Session:
        session = self.sessions.get(key)
        if session is None:
            raise HTTPException(404, f"no game {key[:MAX_NAME]!r} (finished long ago, or "
                                     "never started)")
        return session


def answer(key, session, events=()) -> dict:
    result = {"id": key, "state": session.state(), "events": list(events),
              "level": session.level, "judge": session.judge.source if session.judge else None}
    if session.over and session.judge is not None:
        result["review"] = [session.review(seat) for seat in sorted(session.humans)]
        result["replay"] = session.replay()
    return result


def board_picture(game) -> str:
    """The board at the start as the game page draws it (its layout and the start
    position's pieces), for the rules page."""
    layout, sides = game.presentation.layout, game.presentation.sides
    view = game.presentation.board_view(game.start, first_to_throw=True)
    marks = (view.get("labels") or {}) | (view.get("stacks") or {})
    cells = []
    for c in layout["cells"]:
        seat = view["cells"].get(c["id"])
        piece = "" if seat is None else \
            f"<div class='piece seat{seat}'>{html.escape(str(marks.get(c['id'], '')))}</div>"
        title = f" title='{html.escape(c['title'])}'" if c.get("title") else ""
        cells.append(f"<div class='cell {c['mark']}' style='grid-row: {c['row'] + 1}; "
                     f"grid-column: {c['col'] + 1}'{title}><span class='label'>"
                     f"{html.escape(c['label'])}</span>{piece}</div>")
    waiting = "".join(f"<p>{html.escape(sides[seat])}: {view['waiting'][seat]} waiting</p>"
                      for seat in (0, 1) if view["waiting"][seat])
    return (f"<figure class='board-picture'><div class='board' style='--cols: {layout['cols']}; "
            f"grid-template-columns: repeat({layout['cols']}, var(--cell))'>{''.join(cells)}"
            f"</div>{waiting}<figcaption>The board at the start: {html.escape(sides[0])} "
            f"(light pieces, throws first) and {html.escape(sides[1])} (dark). "
            f"{html.escape(layout.get('legend') or '')}</figcaption></figure>")


async def body(request: Request) -> dict:
    """The request's JSON object; a body over MAX_BODY bytes is refused by its
    Content-Length before it is read, or as soon as that much has arrived."""
    length = request.headers.get("content-length", "0")
    if not length.isascii() or not length.isdigit() or len(length) > 9 or \
            int(length) > MAX_BODY:
        raise HTTPException(413, f"request body too large (at most {MAX_BODY:,} bytes)")
    raw = b""
    try:
        async for chunk in request.stream():
            raw += chunk
            if len(raw) > MAX_BODY:
                raise HTTPException(413, f"request body too large (at most {MAX_BODY:,} bytes)")
    except ClientDisconnect:   # nobody to answer: one line in the log, not a traceback
        LOG.warning("%s %s: the client left before its request body arrived", request.method,
                 request.url.path[:80])
        raise HTTPException(400, "the client left before its request body arrived") from None
    try:
        data = from_json(raw or b"{}")   # pydantic's parser: at most 200 deep
    except ValueError:
        raise HTTPException(400, "the request body is not valid JSON") from None
    if not isinstance(data, dict):
        raise HTTPException(400, "the request body must be a JSON object")
    return data


def create_app(table=None, models=None, say=None) -> Starlette:
    """The app; `table`: a solved table for perfect play and exact hints of its variant;
    `models`: {game name: ONNX path} instead of the shipped networks; `say`: where the
    games are made ready first, a line each (Games.warm_up; None: not made ready)."""
    games = Games(table, models)
    if say is not None:
        games.warm_up(say)

    async def index(request):
        return FileResponse(STATIC / "index.html")

    def levels(game) -> list[str]:
        """The levels `game` can be played at here (session.levels_of), with the table
        and networks this app holds."""
        held = table if table is not None and not table.game.differs_from(
            game.name, game.pieces, game.rules) else None
        return levels_of(game, held, games.networks.of(game)[0] is not None)

    def rule_set(name, rules) -> dict:
        playable = {}   # every piece count the rule set takes, with its levels
        for pieces in range(1, parameters(name)[1].most + 1):
            try:
                playable[str(pieces)] = levels(get_game(name, pieces, rules))
            except PositionError:
                continue
        setup = get_game(name, rules=rules).setup
        return {"name": rules, "default_pieces": playable_pieces(name, rules),
                "playable": playable, "shipped_pieces": shipped_pieces(name, rules),
                "table_pieces": table.game.pieces if table is not None and
                not table.game.differs_from(name, rules=rules) else None,
                "setup": setup.written if setup else None}

    @cache
    def listed() -> dict:   # what the app holds does not change while it runs
        return {"levels": LEVELS, "games": [
            {"name": name, "sides": get_game(name).presentation.sides,
             "parameters": [p.to_json() for p in parameters(name)],
             "rules": [rule_set(name, rules) for rules in rule_sets(name)]}
            for name in GAMES]}   # as registered

    async def list_games(request):
        return JSONResponse(listed())

    async def new_game(request):
        key, session = games.new(await body(request))
        with session.lock:
            events = session.computer_turns()
            layout = session.game.presentation.layout
            return JSONResponse(answer(key, session, events) | {"layout": layout})

    async def state(request):
        key = request.path_params["key"]
        session = games.get(key)
        with session.lock:
            return JSONResponse(answer(key, session) | {"layout": session.game.presentation.layout})

    async def throw(request):
        key = request.path_params["key"]
        session = games.get(key)
        with session.lock:
            if session.phase == "throw" and session.seat not in session.humans:
                raise SessionError("it is the computer's turn")
            events = session.roll()
            events += session.computer_turns()
            return JSONResponse(answer(key, session, events))

    async def move(request):
        key = request.path_params["key"]
        data = await body(request)
        session = games.get(key)
        with session.lock:
            events = session.play(check(MoveRequest, data, "the move", TabulaError).move)
            events += session.computer_turns()
            return JSONResponse(answer(key, session, events))

    async def cube(request):
        key = request.path_params["key"]
        data = await body(request)
        session = games.get(key)
        with session.lock:
            if session.cube is None:
                raise TabulaError(f"{session.game.name} is played without the doubling cube")
            action = check(CubeRequest, data, "the cube action", TabulaError).action
            if action != "double" and session.phase != "take":
                raise SessionError("no double to answer")
            acting = session.seat if action == "double" else 1 - session.seat
            if acting not in session.humans and not session.over:
                raise SessionError("it is the computer's turn")
            events = session.double() if action == "double" else session.answer(
                action == "take")
            events += session.computer_turns()
            return JSONResponse(answer(key, session, events))

    async def undo(request):
        key = request.path_params["key"]
        session = games.get(key)
        with session.lock:
            return JSONResponse(answer(key, session, session.undo()))

    async def hint(request):
        session = games.get(request.path_params["key"])
        with session.lock:
            return JSONResponse(session.hint())

    async def review(request):
        session = games.get(request.path_params["key"])
        with session.lock:
            return JSONResponse({"review": [session.review(s) for s in sorted(session.humans)],
                                 "replay": session.replay()})

    def rules_text(name) -> str:
        if name not in GAMES:
            raise HTTPException(404, f"no game {name!r}")
        return get_game(name).presentation.rules_text()

    async def rules(request):
        return JSONResponse({"html": markdown.to_html(rules_text(request.path_params["name"]))})

    async def rules_page(request):
        name = request.path_params["name"]
        text = rules_text(name)
        page, picture = markdown.to_html(text), board_picture(get_game(name))
        # opened from a game in a tab of its own: closing the tab goes back to that game
        back = ("<a href='/' onclick='if (history.length === 1) { window.close(); "
                "return false; }'>Back to the game</a>")
        return HTMLResponse(f"<!doctype html><html lang='en'><head><meta charset='utf-8'>"
                            f"<meta name='viewport' content='width=device-width, "
                            f"initial-scale=1'><title>Rules of {html.escape(markdown.title(text))}"
                            f" - tabula</title><link rel='stylesheet' href='/static/style.css'>"
                            f"</head><body class='rules'><p>{back}</p>"
                            f"{page.replace('</h1>', '</h1>' + picture, 1)}</body></html>")

    async def error(request, exc):
        if isinstance(exc, HTTPException):
            return JSONResponse({"error": exc.detail}, status_code=exc.status_code)
        return JSONResponse({"error": str(exc)}, status_code=409 if isinstance(
            exc, SessionError) else 400)

    routes = [Route("/", index), Route("/api/games", list_games),
              Route("/api/games", new_game, methods=["POST"]),
              Route("/api/games/{key}", state),
              Route("/api/games/{key}/throw", throw, methods=["POST"]),
              Route("/api/games/{key}/move", move, methods=["POST"]),
              Route("/api/games/{key}/cube", cube, methods=["POST"]),
              Route("/api/games/{key}/undo", undo, methods=["POST"]),
              Route("/api/games/{key}/hint", hint),
              Route("/api/games/{key}/review", review),
              Route("/api/rules/{name}", rules), Route("/rules/{name}", rules_page),
              Mount("/static", StaticFiles(directory=STATIC), name="static")]
    return Starlette(routes=routes, exception_handlers={HTTPException: error,
                                                       TabulaError: error})
