"""tabula serve: play the games in a web browser (a local web app)."""
import socket

from .common import UsageError


def add_parser(sub):
    p = sub.add_parser(
        "serve", help="play in a web browser: a local web app",
        description="Serve the games as a web page on this machine (every asset local, no "
                    "network needed): play any game against the computer at Apprentice "
                    "(the heuristic), Journeyman (the network) or Master strength (a tree "
                    "search over the network, or perfect play with --table), or pass the "
                    "screen to a friend; hints rank the moves with their losses, and a "
                    "review ends each game. Bear-offs are money games with the doubling "
                    "cube, at Journeyman or Master (with a bear-off table). Prints the "
                    "URL; stop with Ctrl-C.")
    p.add_argument("--host", default="127.0.0.1",
                   help="address to listen on (default 127.0.0.1: this machine only)")
    p.add_argument("--port", type=int, default=8000, help="port (default 8000)")
    p.add_argument("--table", metavar="FILE",
                   help="a solved table: perfect play and exact hints for its variant")
    p.add_argument("--model", metavar="FILE.onnx", action="append", default=[],
                   help="a network to play instead of the shipped one of its game "
                        "(repeatable, one per game)")
    p.set_defaults(run=run)


def check_port(host: str, port: int):
    """A UsageError unless the server can listen on host:port. A port whose last
    connections wait out TCP's TIME-WAIT is free to reuse, as uvicorn reuses it
    (SO_REUSEADDR): a server stopped and started again at once starts."""
    with socket.socket() as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind((host, port))
        except OSError as err:
            raise UsageError(f"cannot listen on {host}:{port} ({err.strerror}): "
                             "give another --port or --host") from None


def run(args):
    if not 0 < args.port < 65536:
        raise UsageError("--port must lie between 1 and 65535")
    import uvicorn

    from tabula.runtime.model_file import OnnxValueModel
    from tabula.web import create_app
    table = None
    if args.table:
        from tabula.solver.solution import open_solution
        table = open_solution(args.table)
        # a table that cannot value its game's start (one-sided, or solved with
        # --max-total) is refused now, not at a game's first throw
        table.values([table.game.start])
    models = {}
    for path in args.model:
        models[OnnxValueModel(path).game.name] = path
    check_port(args.host, args.port)
    print("tabula: making the games ready (kernels compiled on first use: a minute with "
          "an empty cache)", flush=True)
    app = create_app(table, models, say=lambda text: print(text, flush=True))
    check_port(args.host, args.port)   # again: it may have been taken meanwhile
    print(f"tabula: open http://{args.host}:{args.port}/ in a browser (Ctrl-C stops)",
          flush=True)
    uvicorn.run(app, host=args.host, port=args.port, log_level="warning")
    return 0
