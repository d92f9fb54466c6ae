"""The web server's memory as games are started: resident set size after each
checkpoint of new games of Ur at each level in turn (Journeyman and Master play the
shipped network), in one process through the app's API.

    python benchmarks/bench_web_memory.py --games 10000

A server that opened the model file once per game would grow with the games; the
sessions kept are capped (tabula/web.py MAX_SESSIONS).
"""
import argparse
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from benchmarks.common import report, run_script  # noqa: E402


def rss_mib() -> float:
    pages = int(Path(f"/proc/{os.getpid()}/statm").read_text().split()[1])
    return pages * os.sysconf("SC_PAGE_SIZE") / 2**20


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=3000, help="games to start (>= 100)")
    args = parser.parse_args()
    if args.games < 100:
        parser.error("--games must be at least 100")
    from starlette.testclient import TestClient

    from tabula.web import create_app
    client = TestClient(create_app())
    from tabula.session import LEVELS
    checkpoints = {100, 1000, args.games // 3, 2 * args.games // 3, args.games}
    rows = []
    for game in range(1, args.games + 1):
        level = list(LEVELS)[game % len(LEVELS)]
        answer = client.post("/api/games", json={"game": "ur", "level": level, "seed": game})
        if answer.status_code != 200:
            raise SystemExit(f"game {game}: {answer.status_code} {answer.text[:200]}")
        if game in checkpoints:
            rows.append({"games started": game, "RSS MiB": round(rss_mib(), 1)})
    report("web_memory", rows)


if __name__ == "__main__":
    run_script(main)
