"""Export: self-contained ONNX with features in the graph, parity, manifests, errors."""
import json

import numpy as np
import onnx
import pytest
import torch

from tabula.runtime.model_file import OnnxValueModel
from tabula.infra.manifest import sha256_file
from tabula.runtime.sampling import uniform_positions
from tabula.cli import main
from tabula.training.evaluate import predict
from tabula.training.model import ValueNet


@pytest.fixture(scope="module")
def exported(ur3_run, tmp_path_factory):
    out = tmp_path_factory.mktemp("models") / "ur3.onnx"
    assert main(["export", str(ur3_run / "checkpoints" / "best.ckpt"), "--out", str(out),
                 "--int8"]) == 0
    return out


def test_fp32_matches_pytorch_at_batch_1_and_4096(exported, ur3_run):
    manifest = json.loads(exported.with_suffix(".json").read_text())
    assert manifest["parity"]["positions"] >= 20000
    assert manifest["parity"]["max_abs_diff"] <= 1e-6
    net = ValueNet.load_from_checkpoint(ur3_run / "checkpoints" / "best.ckpt")
    model = OnnxValueModel(exported, game="ur", pieces=3)
    codes = uniform_positions(net.game, 4096, seed=3)
    expected = predict(net, codes)
    assert np.abs(model.predict(codes) - expected).max() <= 1e-6
    assert abs(model.predict(codes[:1])[0] - expected[0]) <= 1e-6
    graph = onnx.load(str(exported))       # self-contained: no external data
    assert all(not t.external_data for t in graph.graph.initializer)
    assert graph.graph.input[0].type.tensor_type.elem_type == onnx.TensorProto.INT64


def test_int8_written_with_its_difference_reported(exported):
    int8 = exported.with_name("ur3.int8.onnx")
    manifest = json.loads(int8.with_suffix(".json").read_text())
    assert manifest["precision"] == "int8" and int8.stat().st_size < exported.stat().st_size
    parity = manifest["parity"]
    assert 0 < parity["mean_abs_diff"] <= parity["max_abs_diff"] < 0.05
    codes = uniform_positions(OnnxValueModel(int8).game, 100, seed=4)
    batched = OnnxValueModel(int8).predict(codes)
    one_by_one = [OnnxValueModel(int8).predict(codes[i:i + 1])[0] for i in range(10)]
    assert np.abs(batched[:10] - one_by_one).max() < 1e-6  # no batch-wide ranges
    assert manifest["quantization"]["float32"] == ["net.mlp.0.weight", "net.mlp.4.weight"]


def test_int8_weights_round_the_fp32_weights(exported):
    from onnx import numpy_helper
    fp32 = {i.name: numpy_helper.to_array(i) for i in onnx.load(str(exported)).graph.initializer}
    int8 = {i.name: numpy_helper.to_array(i)
            for i in onnx.load(str(exported.with_name("ur3.int8.onnx"))).graph.initializer}
    names = [n[:-len(".int8")] for n in int8 if n.endswith(".int8")]
    assert names == ["net.mlp.2.weight"]
    for name in names:
        values, scale = int8[f"{name}.int8"], int8[f"{name}.scale"][:, None]
        assert values.dtype == np.int8 and name not in int8
        assert (np.abs(values).max(axis=1) == 127).all()  # each unit uses its full range
        assert np.abs(values * scale - fp32[name]).max() <= scale.max() / 2 + 1e-7


def test_int8_biases_absorb_the_mean_rounding_shift(exported):
    from onnx import numpy_helper

    from tabula.export.onnx_export import CALIBRATION_POSITIONS, CALIBRATION_SEED, load_checkpoint
    from tabula.export.quantize import mean_inputs
    fp32 = {i.name: numpy_helper.to_array(i) for i in onnx.load(str(exported)).graph.initializer}
    int8 = {i.name: numpy_helper.to_array(i)
            for i in onnx.load(str(exported.with_name("ur3.int8.onnx"))).graph.initializer}
    manifest = json.loads(exported.with_suffix(".json").read_text())
    net, _ = load_checkpoint(manifest["checkpoint"])
    means = mean_inputs(net, uniform_positions(net.game, CALIBRATION_POSITIONS,
                                               seed=CALIBRATION_SEED))
    for kept in ("net.mlp.0", "net.mlp.4"):   # the first and last layers stay float32
        assert fp32[f"{kept}.bias"].tolist() == int8[f"{kept}.bias"].tolist()
        assert fp32[f"{kept}.weight"].tolist() == int8[f"{kept}.weight"].tolist()
    for layer in ("net.mlp.2",):
        rounded = int8[f"{layer}.weight.int8"] * int8[f"{layer}.weight.scale"][:, None]
        shift = (fp32[f"{layer}.weight"] - rounded) @ means[f"{layer}.weight"]
        assert np.abs(int8[f"{layer}.bias"] - fp32[f"{layer}.bias"] - shift).max() < 1e-6
        assert np.abs(shift).max() > 0


def test_manifest_sha256_values_match_the_files(exported, ur3_run, ur3_data):
    from tabula.datagen.datafile import DataFile
    for path in (exported, exported.with_name("ur3.int8.onnx")):
        manifest = json.loads(path.with_suffix(".json").read_text())
        assert manifest["sha256"] == sha256_file(path)
        assert manifest["bytes"] == path.stat().st_size
        assert manifest["checkpoint_sha256"] == sha256_file(manifest["checkpoint"])
        assert manifest["data_sha256"] == DataFile(ur3_data).attrs["data_sha256"]
        assert manifest["config"]["model"]["hidden"] == [32, 32]
        assert manifest["parameters"] == sum(
            p.numel() for p in ValueNet.load_from_checkpoint(manifest["checkpoint"]).parameters())


def test_bad_checkpoints_fail_clearly(tmp_path, capsys):
    out = str(tmp_path / "m.onnx")
    assert main(["export", str(tmp_path / "none.ckpt"), "--out", out]) == 2
    assert "no checkpoint file" in capsys.readouterr().err
    other = tmp_path / "other.ckpt"
    torch.save({"state_dict": {}, "hyper_parameters": {"lr": 1}}, other)
    assert main(["export", str(other), "--out", out]) == 2
    assert "not a checkpoint of a tabula value net" in capsys.readouterr().err
    other.write_bytes(b"not a checkpoint")
    assert main(["export", str(other), "--out", out]) == 2
    assert "not a checkpoint tabula can read safely" in capsys.readouterr().err
    settings = {"game": "ur", "pieces": 3, "hidden": [8]}
    torch.save({"state_dict": {}, "hyper_parameters": {**settings, "width": 3}}, other)
    assert main(["export", str(other), "--out", out]) == 2
    err = capsys.readouterr().err
    assert "not a checkpoint of a tabula value net" in err and "width" in err
    weights = ValueNet(**settings).state_dict()
    weights["mlp.4.weight"] = weights["mlp.2.weight"]   # a layer the settings do not have
    torch.save({"state_dict": weights, "hyper_parameters": settings}, other)
    assert main(["export", str(other), "--out", out]) == 2
    err = capsys.readouterr().err
    assert "do not fit the net its settings describe" in err and "mlp.4.weight" in err
    assert len(err.splitlines()) == 1


class Payload:
    """Unpickling this runs code: it touches a file."""

    def __init__(self, marker):
        self.marker = str(marker)

    def __reduce__(self):
        import os
        return (os.system, (f"touch {self.marker}",))


def test_a_checkpoint_with_a_pickle_payload_is_refused_and_never_runs(tmp_path, capsys):
    marker = tmp_path / "ran"
    evil = tmp_path / "evil.ckpt"
    torch.save({"state_dict": {}, "hyper_parameters": {"game": "ur", "hidden": [8]},
                "payload": Payload(marker)}, evil)
    assert main(["export", str(evil), "--out", str(tmp_path / "m.onnx")]) == 2
    err = capsys.readouterr().err
    assert "not a checkpoint tabula can read safely" in err and len(err.splitlines()) == 1
    assert "never loads" in err and "weights_only" not in err   # not torch's unsafe advice
    from tabula.training.model import ModelError, ValueNet
    with pytest.raises(ModelError, match="read safely"):
        ValueNet("ur", 2, [8], init_from=str(evil))
    assert not marker.exists()


def test_model_of_another_game_is_refused(exported):
    from tabula.runtime.model_file import ModelError
    with pytest.raises(ModelError, match=r"model of ur\(rules=finkel,pieces=3\), not of senet"):
        OnnxValueModel(exported, game="senet")
    with pytest.raises(ModelError, match="not of masters rules"):
        OnnxValueModel(exported, game="ur", rules="masters")


def test_metadata_round_trip_and_mismatches_refused(exported, tmp_path):
    from tabula.runtime.model_file import ModelError, model_metadata
    model = OnnxValueModel(exported)
    assert model.metadata == model_metadata(model.game)
    assert model.metadata["tabula.game"] == "ur" and model.metadata["tabula.pieces"] == "3"
    assert onnx.load(str(exported)).doc_string.startswith("tabula value network for ur")

    def tampered(name, change):
        graph = onnx.load(str(exported))
        props = {p.key: p.value for p in graph.metadata_props}
        del graph.metadata_props[:]
        onnx.helper.set_model_props(graph, change(props))
        path = tmp_path / f"{name}.onnx"
        onnx.save(graph, str(path))
        path.with_suffix(".json").write_text(exported.with_suffix(".json").read_text())
        return path

    senet = tampered("senet", lambda p: {**p, "tabula.game": "senet", "tabula.rules": "kendall"})
    with pytest.raises(ModelError, match="describes ur"):
        OnnxValueModel(senet)                       # the manifest says ur
    with pytest.raises(ModelError, match="no tabula metadata"):
        OnnxValueModel(tampered("bare", lambda p: {}))
    with pytest.raises(ModelError, match="rules"):
        OnnxValueModel(tampered("rules", lambda p: {**p, "tabula.rules": "murray"}))
    with pytest.raises(ModelError, match="not of senet"):
        OnnxValueModel(exported, game="senet")


def test_a_model_and_manifest_that_do_not_belong_together_are_refused(exported, tmp_path):
    """As after an export killed between writing the two: refused on load."""
    import shutil

    from tabula.runtime.model_file import ModelError
    path = tmp_path / "m.onnx"
    shutil.copy(exported, path)
    manifest = json.loads(exported.with_suffix(".json").read_text())
    path.with_suffix(".json").write_text(json.dumps({**manifest, "sha256": "0" * 64}))
    with pytest.raises(ModelError, match="SHA-256 differs"):
        OnnxValueModel(path)


def test_a_failed_export_leaves_nothing_behind(ur3_run, tmp_path, monkeypatch):
    import tabula.export.onnx_export as onnx_export

    def broken(*args, **kwargs):
        raise RuntimeError("killed")
    monkeypatch.setattr(onnx_export, "quantize_weights", broken)
    out = tmp_path / "m.onnx"
    with pytest.raises(RuntimeError):
        onnx_export.export(ur3_run / "checkpoints" / "best.ckpt", out, int8=True)
    assert list(tmp_path.iterdir()) == []


def test_an_export_replaces_earlier_files_only_with_force(exported, ur3_run, capsys):
    checkpoint = str(ur3_run / "checkpoints" / "best.ckpt")
    int8_model = exported.with_name("ur3.int8.onnx")
    int8_manifest = int8_model.with_suffix(".json")
    before = int8_manifest.read_bytes()
    exported.with_suffix(".json").rename(exported.with_suffix(".kept"))
    try:   # the fp32 manifest gone, the int8 files still there: refused all the same
        assert main(["export", checkpoint, "--out", str(exported), "--int8"]) == 2
        assert f"{exported} exists; use --force" in capsys.readouterr().err
        exported.rename(exported.with_suffix(".moved"))
        assert main(["export", checkpoint, "--out", str(exported), "--int8"]) == 2
        assert f"{int8_model} exists" in capsys.readouterr().err
        assert int8_manifest.read_bytes() == before
    finally:
        exported.with_suffix(".moved").rename(exported)
        exported.with_suffix(".kept").rename(exported.with_suffix(".json"))
    assert main(["export", checkpoint, "--out", str(exported), "--int8", "--force"]) == 0
