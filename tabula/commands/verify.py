"""tabula verify: any of tabula's files (table, data set, decision set, model, report,
a pipeline's work folder) against its checksums and schema, and the provenance chain
model -> data -> table."""
from argparse import Namespace
from pathlib import Path

import h5py
import numpy as np

from tabula.infra.errors import TabulaError
from tabula.infra.schemas import (ModelManifest, ReportResults, StageRecords, check,
                                  is_file_name, load_json, read_json)

from .common import print_json_or_text, sample_size


def add_parser(sub):
    p = sub.add_parser(
        "verify", help="check a table, data set, decision set, model or report and where "
                       "it came from",
        description="Check FILE by its kind: a table (.h5: its checksum and the Bellman "
                    "residual at the starts and on a sample of every layer), a data set "
                    "(.h5: the checksum of every split), a decision set (.h5: its checksum, "
                    "positions and moves; with --table, its worths against the table), a "
                    "model (.onnx or its manifest .json: the file's "
                    "SHA-256 against the manifest, sane values) or a report (its folder "
                    "or results.json). Every kind must carry the fields of the manifest "
                    "schema (docs/FORMATS.md). Then the chain: a model's data set and "
                    "table, a data set's table, a report's table must be the files their "
                    "checksums name (found by --data/--table, else where the file "
                    "recorded them; not checked when absent). Exit status 1 when a check "
                    "fails.")
    p.add_argument("file", metavar="FILE",
                   help="table, data set, decision set, model, report, or a pipeline's work "
                        "folder (every file in it)")
    p.add_argument("--data", metavar="DATA.h5", help="the data set a model was trained on")
    p.add_argument("--table", metavar="TABLE.h5", help="the table the file came from")
    p.add_argument("--sample", type=sample_size, default=100_000,
                   help="positions per layer whose residual a table check recomputes")
    p.add_argument("--json", action="store_true", help="print the result as JSON")
    p.set_defaults(run=run)


def kind_of(path: Path) -> tuple[str, Path]:
    """('table' | 'data' | 'decisions' | 'model' | 'report' | 'run', the path to check)."""
    if path.is_dir():
        return ("run" if (path / "stages.json").is_file() else "report"), path
    if not path.is_file():
        raise TabulaError(f"no file {path}")
    if path.suffix == ".onnx":
        return "model", path
    if path.suffix == ".json":
        meta = load_json(path, TabulaError)
        if isinstance(meta, dict) and "provenance" in meta:
            check(ReportResults, meta, str(path), TabulaError)
            return "report", path.parent
        if isinstance(meta, dict) and meta.get("format") == "tabula-onnx-value":
            manifest = check(ModelManifest, meta, str(path), TabulaError)
            return "model", path.with_name(manifest.file or path.stem + ".onnx")
        raise TabulaError(f"{path} is neither a model manifest nor a report's results.json")
    try:
        with h5py.File(path, "r") as f:
            file_format = f.attrs.get("format")
    except OSError:
        raise TabulaError(f"{path} is not a tabula file (not HDF5, ONNX or JSON)") from None
    from tabula.solver.solution import KINDS
    kinds = {**{kind.format: "table" for kind in KINDS}, "tabula-data": "data",
             "tabula-decisions": "decisions"}
    if file_format not in kinds:
        raise TabulaError(f"{path} is HDF5 but neither a tabula table, a data set nor a "
                          "decision set")
    return kinds[file_format], path


def _link(checks, what, expected, path, read_sha, given):
    """Compare the checksum `expected` with the file at `path`: one the user gave
    must be of the right kind; one found where the file recorded it may not be."""
    if path is None or not Path(path).is_file():
        checks.append({"check": what, "ok": None,
                       "detail": f"not checked: file not found ({path or 'not recorded'})"})
        return None
    try:
        found = read_sha(Path(path))
    except TabulaError as err:
        if given:
            raise
        checks.append({"check": what, "ok": None, "detail": f"not checked: {err}"})
        return None
    checks.append({"check": what, "ok": found == expected,
                   "detail": f"{path}: {found}" + ("" if found == expected
                                                   else f", expected {expected}")})
    return Path(path)


def _beside(path: Path, name) -> Path | None:
    """The file `name` a file recorded beside it (None unless a plain file name)."""
    return path.with_name(name) if is_file_name(name) else None


def _table_sha(path):
    from tabula.solver.solution import open_solution
    return open_solution(path).attrs["sha256"]


def _data(path):
    from tabula.datagen.datafile import DataFile
    return DataFile(path)


def run(args):
    for given in (args.data, args.table):   # a file named on the command line must exist
        if given is not None and not Path(given).is_file():
            raise TabulaError(f"no file {given}")
    kind, path = kind_of(Path(args.file))
    checks = _run_checks(path, args) if kind == "run" else _checks(kind, path, args)
    ok = all(c["ok"] is not False for c in checks)
    lines = [f"{path}: {kind}, {'ok' if ok else 'FAILED'}"] + [
        f"  [{'ok' if c['ok'] else ('--' if c['ok'] is None else 'FAIL')}] {c['check']}: "
        f"{c['detail']}" for c in checks]
    print_json_or_text(args, {"file": str(path), "kind": kind, "ok": ok, "checks": checks},
                       "\n".join(lines))
    return 0 if ok else 1


RUN_FILES = ("table.h5", "data.h5", "model.onnx", "model.int8.onnx", "report")   # a
# pipeline's work folder (tabula/pipeline.py), in the order its stages write them


def _run_checks(path: Path, args) -> list[dict]:
    """The checks of every file a pipeline's work folder holds, each by its kind and
    chained to the folder's own data set and table; its stage records by their schema."""
    checks = []
    try:
        read_json(path / "stages.json", StageRecords, TabulaError)
        checks.append({"check": "run: stages.json", "ok": True, "detail": "the stage records"})
    except TabulaError as err:
        checks.append({"check": "run: stages.json", "ok": False, "detail": str(err)})
    beside = {"data": path / "data.h5", "table": path / "table.h5"}
    chained = Namespace(sample=args.sample, **{key: str(p) if p.is_file() else None
                                                for key, p in beside.items()})
    for name in RUN_FILES:
        if not (path / name).exists():
            checks.append({"check": f"{name}", "ok": None, "detail": "not there (its stage "
                                                                      "has not run)"})
            continue
        kind, target = kind_of(path / name)
        checks += [c | {"check": f"{name}: {c['check']}"} for c in _checks(kind, target, chained)]
    return checks


def _checks(kind, path, args) -> list[dict]:
    """The checks of the file at `path`, of `kind`; a file of its kind that fails the
    checks made on opening is one failed check."""
    checks = []

    def own(report, name):
        checks.append({"check": name, "ok": report["ok"],
                       "detail": ", ".join(f"{k} {v}" for k, v in report.items()
                                           if k.endswith("_ok") or k.startswith("missing")
                                           or k == "max_residual")})
    try:
        _check_kind(kind, path, args, checks, own)
    except TabulaError as err:
        checks.append({"check": f"{kind}: opened with its checks", "ok": False,
                       "detail": str(err)})
    return checks


def _check_kind(kind, path, args, checks, own):
    if kind == "table":
        from tabula.solver.solution import open_solution
        own(open_solution(path).verify(sample=args.sample),
            "table: checksums, residuals where sweeps made it, schema")
    elif kind == "data":
        data = _data(path)
        own(data.verify(), "data: checksums of the splits, schema")
        if "teacher" in data.attrs:
            checks.append({"check": "data -> teacher", "ok": None,
                           "detail": f"taught by {data.attrs['teacher']}, not from a table"})
            return
        table = args.table or _beside(path, data.attrs.get("table_file"))
        _link(checks, "data -> table", data.attrs["table_sha256"], table, _table_sha,
              bool(args.table))
    elif kind == "decisions":
        from tabula.datagen.decision_set import DecisionSet
        decisions = DecisionSet(path)
        checks.append({"check": "decisions: checksum, positions, the legal moves of a throw, "
                                "winning moves worth a win, schema", "ok": True,
                       "detail": f"{len(decisions.codes):,} decisions of "
                                 f"{decisions.game.describe()}"})
        if "teacher" in decisions.attrs:
            checks.append({"check": "decisions -> teacher", "ok": None,
                           "detail": f"searched by {decisions.attrs['teacher']}, not exact"})
            return
        if _link(checks, "decisions -> table", decisions.attrs.get("table_sha256"),
                 args.table, _table_sha, bool(args.table)) is not None:
            from tabula.solver.solution import open_solution
            exact = open_solution(args.table).decision_worths(
                decisions.counts, decisions.next_codes, decisions.infos)
            live = np.arange(exact.shape[1]) < decisions.counts[:, None]
            worst = float(np.abs(exact - decisions.worths)[live].max())
            checks.append({"check": "decisions: worths against the table",
                           "ok": worst <= 1e-6, "detail": f"largest difference {worst:.2e}"})
    elif kind == "model":
        from tabula.runtime.model_file import OnnxValueModel
        model = OnnxValueModel(path, check_manifest=False)
        model.manifest = model.read_manifest(check_sha=False)   # the check reports it
        own(model.verify(), "model: SHA-256 against the manifest, values, schema")
        manifest = model.manifest
        data_path = _link(checks, "model -> data", manifest.get("data_sha256"),
                          args.data or manifest.get("data_file"),
                          lambda p: _data(p).attrs["data_sha256"], bool(args.data))
        table = args.table
        if table is None and data_path is not None:
            table = _beside(data_path, _data(data_path).attrs.get("table_file"))
        _link(checks, "model -> table", manifest.get("table_sha256"), table, _table_sha,
              bool(args.table))
    else:
        from tabula.eval.report import verify_report
        report = verify_report(path)
        own(report, "report: schema, REPORT.md and plots")
        _link(checks, "report -> table", report["provenance"].get("table_sha256"),
              args.table or report["provenance"].get("table"), _table_sha, bool(args.table))
