"""The one manifest schema of tabula's files: tables, data sets, models and reports
(docs/FORMATS.md). Every file carries the same provenance fields, and names the
files it was made from by their checksums, so a model can be traced to its data
and the data to its table:

  format, format_version   what the file is ("tabula-table", "tabula-data",
                           "tabula-onnx-value", "tabula-report") and its layout version
  game, rules, pieces      the game variant
  code_version, machine    the tabula version (and git commit) that wrote it, and where
  created                  when (not in data sets: the same seed gives the same bytes)
  its own checksum         sha256 (table, model) or data_sha256 (data set)
  what it came from        table_sha256 (data, model, report), data_sha256 (model); a
                           data set taught by search names its teacher instead

HDF5 attributes cannot hold dicts, so there `machine` is a JSON string.
"""
import hashlib

from tabula.infra.provenance import code_version, machine, now

COMMON = ("format", "format_version", "game", "rules", "pieces", "code_version", "machine")
OWN_CHECKSUM = {"tabula-table": "sha256", "tabula-data": "data_sha256",
                "tabula-onnx-value": "sha256", "tabula-report": None,
                "tabula-outcome-table": "sha256"}
SOURCES = {"tabula-table": (), "tabula-data": ("table_sha256",),
           "tabula-onnx-value": ("table_sha256", "data_sha256"),
           "tabula-report": ("table_sha256",)}


def stamp(file_format: str, format_version: int, game, created: bool = True) -> dict:
    """The common fields of a file of `file_format` made now for `game` (and the time)."""
    fields = {"format": file_format, "format_version": format_version, "game": game.name,
              "rules": game.rules, "pieces": game.pieces, "code_version": code_version(),
              "machine": machine()}
    return {**fields, "created": now()} if created else fields


def sha256_file(path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def missing_fields(meta: dict) -> list[str]:
    """The schema's fields that `meta` (a file's attributes or manifest) lacks."""
    file_format = meta.get("format")
    wanted = list(COMMON) + list(SOURCES.get(file_format, ()))
    if file_format == "tabula-data" and "teacher" in meta:   # taught by search, no table
        wanted.remove("table_sha256")
    if OWN_CHECKSUM.get(file_format):
        wanted.append(OWN_CHECKSUM[file_format])
    return [key for key in wanted if key not in meta]
