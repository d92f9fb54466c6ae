"""How fast `tabula serve` answers a move: the request, the computer's reply turns
(Master strength: the network with one throw of search) and the answer, over HTTP
to a uvicorn server on this machine.

    python benchmarks/bench_serve.py [--requests N] [--game ur] [--level master]

Plays games through the API (always the first listed move) and times every move
request; prints the median, 95th percentile and worst.
"""
import argparse
import json
import socket
import sys
import threading
import time
import urllib.request
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from benchmarks.common import report, run_script  # noqa: E402


def post(url, body=None):
    data = json.dumps(body or {}).encode()
    request = urllib.request.Request(url, data=data, method="POST",
                                     headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request) as response:
        return json.loads(response.read())


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--requests", type=int, default=300)
    parser.add_argument("--game", default="ur")
    parser.add_argument("--level", default="master")
    args = parser.parse_args()
    import uvicorn

    from tabula.web import create_app
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(create_app(), host="127.0.0.1", port=port,
                                           log_level="warning"))
    threading.Thread(target=server.run, daemon=True).start()
    while not server.started:
        time.sleep(0.05)
    base = f"http://127.0.0.1:{port}/api/games"
    times, game_count = [], 0
    data = None
    while len(times) < args.requests:
        if data is None or data["state"]["phase"] == "over":
            data = post(base, {"game": args.game, "level": args.level, "seed": game_count})
            key, game_count = data["id"], game_count + 1
        if data["state"]["phase"] == "throw":
            data = post(f"{base}/{key}/throw")
            continue
        t0 = time.perf_counter()
        data = post(f"{base}/{key}/move", {"move": data["state"]["moves"][0]["index"]})
        times.append(time.perf_counter() - t0)
    server.should_exit = True
    ms = 1000 * np.array(times[5:])   # the first requests load the model and compile
    report("serve", [{"game": f"{args.game} {data['state']['pieces']}", "level": args.level,
                      "move requests": len(ms), "games": game_count,
                      "median ms": float(np.median(ms)),
                      "95th percentile ms": float(np.percentile(ms, 95)),
                      "worst ms": float(ms.max()), "target": "< 50 ms"}])


if __name__ == "__main__":
    run_script(main)
