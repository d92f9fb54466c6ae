"""tabula verify: every kind of file against its checksums and the manifest schema, and
the provenance chain model -> data -> table; a tampered file fails, exit status 1."""
import json
import shutil

import h5py
import numpy as np
import pytest

from tabula.infra.manifest import COMMON, missing_fields
from tabula.cli import main


def verify(capsys, *args):
    code = main(["verify", *map(str, args), "--json"])
    return code, json.loads(capsys.readouterr().out.strip().splitlines()[-1])


@pytest.fixture(scope="module")
def model(ur3_run, tmp_path_factory):
    out = tmp_path_factory.mktemp("verify") / "ur3.onnx"
    assert main(["export", str(ur3_run / "checkpoints" / "best.ckpt"), "--out", str(out)]) == 0
    return out


def test_the_whole_chain_checks_out(model, ur3_data, tables, capsys):
    table = tables[("ur", 3)].path
    code, result = verify(capsys, model, "--data", ur3_data, "--table", table)
    assert code == 0 and result["kind"] == "model" and result["ok"]
    assert [c["ok"] for c in result["checks"]] == [True, True, True]
    code, result = verify(capsys, model.with_suffix(".json"))   # recorded data path
    assert code == 0 and result["checks"][1]["ok"] is True
    code, result = verify(capsys, ur3_data, "--table", table)
    assert code == 0 and result["kind"] == "data" and result["checks"][1]["ok"]
    code, result = verify(capsys, table, "--sample", 500)
    assert code == 0 and result["kind"] == "table"


def test_every_kind_carries_the_common_fields(model, ur3_data, tables):
    manifest = json.loads(model.with_suffix(".json").read_text())
    with h5py.File(ur3_data) as f:
        data_attrs = dict(f.attrs)
    with h5py.File(tables[("ur", 3)].path) as f:
        table_attrs = dict(f.attrs)
    for meta in (manifest, data_attrs, table_attrs):
        assert not missing_fields(meta) and all(k in meta for k in COMMON)
    assert manifest["table_sha256"] == data_attrs["table_sha256"] == table_attrs["sha256"]
    assert manifest["data_sha256"] == data_attrs["data_sha256"]


def test_tampering_and_the_wrong_table_are_caught(model, ur3_data, tables, tmp_path, capsys):
    bad = tmp_path / "bad.onnx"
    shutil.copy(model, bad)
    shutil.copy(model.with_suffix(".json"), bad.with_suffix(".json"))
    manifest = json.loads(bad.with_suffix(".json").read_text())
    bad.with_suffix(".json").write_text(json.dumps({**manifest, "file": "bad.onnx",
                                                    "sha256": "0" * 64}))
    code, result = verify(capsys, bad)
    assert code == 1 and result["checks"][0]["ok"] is False
    code, result = verify(capsys, model, "--data", ur3_data, "--table",
                          tables[("ur", 2)].path)
    assert code == 1 and result["checks"][2]["ok"] is False
    data = tmp_path / "data.h5"
    shutil.copy(ur3_data, data)
    with h5py.File(data, "r+") as f:
        f["train"]["values"][0] = np.float32(0.123)
    code, result = verify(capsys, data)
    assert code == 1 and result["checks"][0]["ok"] is False


def test_a_report_and_files_of_no_kind(tables, tmp_path, capsys):
    out = tmp_path / "report"
    assert main(["eval", "report", "ur", "--pieces", "3", "--table", str(tables[("ur", 3)].path),
                 "--games", "50", "--players", "random", "--out", str(out), "--quiet"]) == 0
    capsys.readouterr()
    code, result = verify(capsys, out)
    assert code == 0 and result["kind"] == "report" and result["checks"][1]["ok"] is True
    (tmp_path / "x.txt").write_text("hello")
    assert main(["verify", str(tmp_path / "x.txt")]) == 2
    assert "not a tabula file" in capsys.readouterr().err
