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


def relabelled(model, tmp_path, change):
    """A copy of `model` whose tabula metadata `change` rewrites, with a manifest that
    matches it (the variant and the SHA-256), as a careful forger would leave them."""
    import onnx

    from tabula.infra.manifest import sha256_file
    proto = onnx.load(str(model))
    meta = {p.key: p.value for p in proto.metadata_props}
    change(meta)
    del proto.metadata_props[:]
    for key, value in meta.items():
        proto.metadata_props.add(key=key, value=value)
    out = tmp_path / "forged.onnx"
    onnx.save(proto, str(out))
    manifest = json.loads(model.with_suffix(".json").read_text())
    said = meta.get("tabula.pieces", "")
    pieces = int(said) if said.isdigit() and len(said) < 4 else 0
    out.with_suffix(".json").write_text(json.dumps({**manifest, "file": out.name,
                                                    "pieces": pieces,
                                                    "sha256": sha256_file(out)}))
    return out


def test_a_network_relabelled_as_another_variant_fails_on_its_inputs(model, tmp_path,
                                                                     capsys):
    forged = relabelled(model, tmp_path, lambda m: m.update({"tabula.pieces": "4"}))
    code, result = verify(capsys, forged)
    assert code == 1 and "inputs_ok False" in result["checks"][0]["detail"]
    for change in (lambda m: m.update({"tabula.pieces": "abc"}),
                   lambda m: m.update({"tabula.pieces": "9" * 5000}),
                   lambda m: m.pop("tabula.game")):
        forged = relabelled(model, tmp_path, change)
        assert main(["verify", str(forged)]) != 0
        said = capsys.readouterr()
        assert "broken tabula metadata" in said.out + said.err and "Traceback" not in said.err


def test_manifests_nested_deep_or_naming_files_elsewhere_are_one_line(model, tmp_path,
                                                                      capsys):
    manifest = tmp_path / "m.json"
    for text in ("[" * 5000 + "]" * 5000,
                 json.dumps({"format": "tabula-onnx-value", "file": "../../../../etc/passwd"}),
                 json.dumps({"format": "tabula-onnx-value", "file": ""})):
        manifest.write_text(text)
        assert main(["verify", str(manifest)]) == 2
        err = capsys.readouterr().err
        assert len(err.strip().splitlines()) == 1, err
    copy = tmp_path / "ur3.onnx"
    shutil.copy(model, copy)
    copy.with_suffix(".json").write_text("{" * 5000)
    assert main(["verify", str(copy)]) != 0
    said = capsys.readouterr()
    assert "ur3.json is not JSON" in said.out + said.err


def test_a_pipeline_s_work_folder_is_verified_file_by_file(model, ur3_data, tables, tmp_path,
                                                           capsys):
    """A work folder (stages.json beside the files its stages wrote) is checked file by
    file, each chained to the folder's own data set and table; a damaged file in it
    fails the folder, and stages not run are said so (issue 66: verify covers every
    kind of file)."""
    run = tmp_path / "run"
    run.mkdir()
    shutil.copy(tables[("ur", 3)].path, run / "table.h5")
    shutil.copy(ur3_data, run / "data.h5")
    for suffix in (".onnx", ".json"):
        shutil.copy(model.with_suffix(suffix), run / f"model{suffix}")
    (run / "stages.json").write_text(json.dumps({"solve": {"stamp": "x", "seconds": 1.0}}))
    code, result = verify(capsys, run, "--sample", 300)
    assert code == 0 and result["kind"] == "run" and result["ok"]
    checked = {c["check"].split(":")[0] for c in result["checks"] if c["ok"]}
    assert {"run", "table.h5", "data.h5", "model.onnx"} <= checked
    assert {c["check"] for c in result["checks"] if c["ok"] is None} == {"model.int8.onnx",
                                                                         "report"}
    assert any("model -> table" in c["check"] and c["ok"] for c in result["checks"])
    with h5py.File(run / "table.h5", "r+") as f:   # damaged: the folder fails
        f["layers/2_2"][:10] = 0.5
    code, result = verify(capsys, run, "--sample", 300)
    assert code == 1 and not result["ok"]
    (run / "stages.json").write_text("[not records")
    code, result = verify(capsys, run, "--sample", 300)
    assert code == 1 and result["checks"][0]["ok"] is False
