"""Shared by the benchmark scripts: machine facts, a table printer, JSON output, and
how a script runs."""
import json
import sys
import tempfile
from contextlib import contextmanager
from pathlib import Path

from tabula.infra.provenance import code_version, machine

RESULTS = Path(__file__).resolve().parent / "results"


def run_script(main) -> None:
    """Run a script's main as `tabula` runs a command: a bad input (a missing file, a
    file of the wrong kind) is one line and exit status 2, not a traceback."""
    from tabula.cli import guarded
    sys.exit(guarded(Path(sys.argv[0]).name, main))


@contextmanager
def work_folder(given: Path | None):
    """The folder a script keeps its files in: `given` (made if missing), else a
    temporary one, removed after."""
    with tempfile.TemporaryDirectory() as scratch:
        folder = given or Path(scratch)
        folder.mkdir(parents=True, exist_ok=True)
        yield folder


def report(name: str, rows: list[dict], extra: dict | None = None) -> Path:
    """Print rows as an aligned table and write them, with provenance, to results/NAME.json."""
    columns = list(dict.fromkeys(c for r in rows for c in r))   # a row may lack some
    widths = {c: max(len(c), *(len(_fmt(r.get(c, ""))) for r in rows)) for c in columns}
    print("  ".join(c.ljust(widths[c]) for c in columns))
    for r in rows:
        print("  ".join(_fmt(r.get(c, "")).ljust(widths[c]) for c in columns))
    RESULTS.mkdir(exist_ok=True)
    path = RESULTS / f"{name}.json"
    path.write_text(json.dumps({"benchmark": name, "machine": machine(),
                                "code_version": code_version(), "rows": rows, **(extra or {})},
                               indent=2) + "\n")
    print(f"wrote {path}")
    return path


def _fmt(value) -> str:
    if isinstance(value, float):
        return f"{value:,.3g}" if abs(value) < 1000 else f"{value:,.0f}"
    if isinstance(value, int):
        return f"{value:,}"
    return str(value)
