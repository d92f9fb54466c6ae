"""How fast `tabula serve` answers a person's first requests once it says it is ready:
for every rule set's default variant and every level the page offers for it, a new
game in which the computer moves first, the person's first throw, a move and a
hint, each timed over HTTP. The server makes the games ready before it says so
(session.warm_up); --cold starts it with an empty numba cache, as after installing,
to show what that costs at start-up instead.

    python benchmarks/bench_first_reply.py [--cold]
"""
import argparse
import json
import os
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from benchmarks.common import report, run_script  # noqa: E402

TARGET_MS = 1000


def request(url, body=None):
    """(answer, milliseconds) of a GET, or of a POST of `body`."""
    data = None if body is None else json.dumps(body).encode()
    started = time.perf_counter()
    with urllib.request.urlopen(urllib.request.Request(
            url, data=data, method="GET" if body is None else "POST",
            headers={"Content-Type": "application/json"})) as response:
        answer = json.loads(response.read())
    return answer, 1000 * (time.perf_counter() - started)


def first_requests(base, game, rules, pieces, level, sides) -> dict:
    """The new game (the computer first), then the person's throw, move and hint."""
    data, new_ms = request(base, {"game": game, "rules": rules, "pieces": pieces,
                                  "level": level, "side": sides[1], "seed": 1})
    key, slowest = data["id"], 0.0
    for _ in range(20):   # until the person has thrown, moved and asked a hint once
        state = data["state"]
        if state["phase"] == "over":
            break
        if state["phase"] == "throw":
            data, ms = request(f"{base}/{key}/throw", {})
        elif state["phase"] == "move" and state["moves"]:
            try:
                _, hint_ms = request(f"{base}/{key}/hint")
            except urllib.error.HTTPError:   # nothing to judge with (no table or network)
                hint_ms = None
            data, ms = request(f"{base}/{key}/move", {"move": 0})
            return {"new_game_ms": new_ms, "reply_ms": max(slowest, ms), "hint_ms": hint_ms}
        else:   # a double to answer
            data, ms = request(f"{base}/{key}/cube", {"action": "take"})
        slowest = max(slowest, ms)
    return {"new_game_ms": new_ms, "reply_ms": slowest, "hint_ms": None}


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--cold", action="store_true",
                        help="start the server with an empty numba cache")
    args = parser.parse_args()
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    env = dict(os.environ)
    cache = tempfile.TemporaryDirectory()
    if args.cold:
        env["NUMBA_CACHE_DIR"] = cache.name
    started = time.perf_counter()
    server = subprocess.Popen([sys.executable, "-m", "tabula", "serve", "--port", str(port)],
                              stdout=subprocess.PIPE, text=True, env=env)
    try:
        for line in server.stdout:
            print(line, end="", flush=True)
            if "open http" in line:
                break
        ready_s = time.perf_counter() - started
        base = f"http://127.0.0.1:{port}/api/games"
        for _ in range(200):   # uvicorn listens a moment after the line
            try:
                listed, _ = request(base)
                break
            except urllib.error.URLError:
                time.sleep(0.05)
        rows = []
        for entry in listed["games"]:
            for rule_set in entry["rules"]:
                pieces = rule_set["default_pieces"]
                for level in rule_set["playable"][str(pieces)]:
                    timed = first_requests(base, entry["name"], rule_set["name"], pieces,
                                           level, entry["sides"])
                    worst = max(v for v in timed.values() if v is not None)
                    rows.append({"game": f"{entry['name']} {rule_set['name']} {pieces}",
                                 "level": level, **{k: None if v is None else round(v, 1)
                                                    for k, v in timed.items()},
                                 "target": f"< {TARGET_MS} ms",
                                 "met": "yes" if worst < TARGET_MS else "no"})
    finally:
        server.terminate()
        server.wait()
        cache.cleanup()
    print(f"the server said it was ready after {ready_s:.1f} s"
          + (" (an empty numba cache)" if args.cold else ""))
    report("first_reply" + ("_cold" if args.cold else ""), rows,
           {"ready_seconds": ready_s, "cold": args.cold})


if __name__ == "__main__":
    run_script(main)
