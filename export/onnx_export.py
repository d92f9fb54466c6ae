"""A trained value net as one self-contained ONNX file (fp32, optionally int8), each
with a manifest JSON beside it.

The graph takes the packed position codes (int64, any batch size) and computes the
game's features inside (games/features.py is written in traceable tensor
operators), then the MLP and the sigmoid: a client needs nothing but the codes.
"""
import contextlib
import io
import json
import logging
import os
import warnings
from pathlib import Path

import numpy as np
import torch
import yaml

from tabula.infra.errors import TabulaError
from tabula.infra.yamlfile import load_yaml
from tabula.runtime.sampling import uniform_positions
from tabula.infra.manifest import sha256_file, stamp
from tabula.solver.values import value_ranges

from tabula.runtime.model_file import (FORMAT, FORMAT_VERSION, OnnxValueModel, input_shape,
                                      model_input, model_metadata,
                                      output_spec)
from .quantize import mean_inputs, quantize_weights

PARITY_POSITIONS = 20_000
# of each output's range (an equity's is 6 points). float32's rounding through the
# layers, with onnxruntime's exp against torch's, reaches 1e-6 over the positions
# (hypergammon's SiLU nets: 0.8e-6 and 1.01e-6); the bound is ten times that.
PARITY_BOUND = 1e-5
CALIBRATION_POSITIONS = 20_000  # uniform positions whose mean layer inputs correct int8 biases
CALIBRATION_SEED = 54321
INPUT_NAME = "codes"


class ExportError(TabulaError):
    """A checkpoint that cannot be exported (missing, or not a tabula value net)."""


class Prediction(torch.nn.Module):
    """The net's values (ValueNet.predict) as the graph's output."""

    def __init__(self, net):
        super().__init__()
        self.net = net

    def forward(self, codes):
        return self.net.predict(codes)


def load_checkpoint(path):
    """The ValueNet of a checkpoint (read safely: no code in it runs) and what it
    recorded about its data."""
    from tabula.training.model import ValueNet
    net, raw = ValueNet.from_checkpoint(Path(path))
    return net.eval(), raw.get("tabula", {})


def _run_config(checkpoint: Path):
    """The run's config.yaml beside the checkpoint's folder (None where there is none),
    recorded in the manifest; one that is not plain YAML is refused in one line."""
    config = checkpoint.resolve().parent.parent / "config.yaml"
    if not config.is_file():
        return None
    try:
        return load_yaml(config.read_text(encoding="utf-8"))
    except (yaml.YAMLError, UnicodeDecodeError) as err:
        raise ExportError(f"{config} is not plain YAML ({' '.join(str(err).split())[:200]})"
                          ) from None


def written_paths(out, int8: bool) -> list:
    """The files an export to OUT writes: the model and its manifest, then the int8 pair."""
    out = Path(out)
    return [out, out.with_suffix(".json")] + (
        [int8_model_path(out), int8_model_path(out).with_suffix(".json")] if int8 else [])


def int8_model_path(out: Path) -> Path:
    return out.with_name(out.stem + ".int8.onnx")


def export(checkpoint, out, int8=False, quiet=False) -> dict:
    """Write OUT (fp32), and OUT with .int8.onnx if int8, each with a manifest."""
    checkpoint, out = Path(checkpoint), Path(out)
    net, recorded = load_checkpoint(checkpoint)
    game = net.game
    model = Prediction(net).eval()
    codes = uniform_positions(game, PARITY_POSITIONS, seed=12345)
    with torch.no_grad():
        reference = model(torch.from_numpy(codes)).double().numpy()
    example = torch.from_numpy(model_input(codes[:16]))
    int8_path = int8_model_path(out)
    finals = written_paths(out, int8)
    partial = {path: path.with_name(path.name + ".partial") for path in finals}
    try:
        logging.getLogger("torch.onnx").setLevel(logging.ERROR)   # "torchvision not installed"
        with contextlib.redirect_stdout(io.StringIO()), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            torch.onnx.export(model, (example,), partial[out], input_names=[INPUT_NAME],
                              output_names=[output_spec(game)["name"]],
                              dynamic_shapes=({0: torch.export.Dim("batch")},),
                              external_data=False)
        _finish_graph(partial[out], game)
        results = _manifests(net, game, checkpoint, recorded, codes, reference, out, int8_path,
                             int8, partial)
        for path in finals:   # the models first: a manifest never names a model not there
            os.replace(partial[path], path)
    finally:
        for path in partial.values():
            path.unlink(missing_ok=True)
    return results


def _manifests(net, game, checkpoint, recorded, codes, reference, out, int8_path, int8,
               partial) -> dict:
    """Measure each exported model (its .partial file) against PyTorch and write its
    manifest (as .partial too); returns what was written, by precision."""
    common = {**stamp(FORMAT, FORMAT_VERSION, game), "parameters": net.parameter_count(),
              "hidden": list(net.hparams.hidden), "activation": net.hparams.activation,
              "input": {"name": INPUT_NAME, "dtype": "int64", "shape": input_shape(game),
                        "description": "packed position codes, seen by the player about "
                                       "to throw; features are computed inside the graph",
                        "code_layout": game.presentation.code_layout,
                        "features": game.encoding.doc()},
              "output": output_spec(game),
              "checkpoint": str(checkpoint), "checkpoint_sha256": sha256_file(checkpoint),
              "data_file": recorded.get("data_path"),
              "data_sha256": recorded.get("data_sha256"),
              "table_sha256": recorded.get("table_sha256"),
              "config": _run_config(checkpoint)}
    if "td" in recorded:   # taught by self-play (training/td.py): no data file, its run
        common["self_play"] = {k: v for k, v in recorded["td"].items() if k != "chunks"}
    low, high = value_ranges(game)
    spans = np.array(high) - np.array(low)
    results = {"fp32": _finish(out, partial, common, codes, reference, spans, "fp32")}
    if int8:
        calibration = uniform_positions(game, CALIBRATION_POSITIONS, seed=CALIBRATION_SEED)
        quantization = quantize_weights(partial[out], partial[int8_path],
                                        mean_inputs(net, calibration))
        common = {**common, "quantization": {**quantization,
                                             "calibration_positions": len(calibration)}}
        results["int8"] = _finish(int8_path, partial, common, codes, reference, spans,
                                  "int8", fp32_path=partial[out])
    return results


def _finish_graph(path, game):
    """Drop the exporter's per-node stack traces and names of Python sources (they
    more than double a small model's file and say nothing to its users), and write
    what the model plays into the file's metadata."""
    import onnx
    model = onnx.load(str(path))
    for node in model.graph.node:
        node.doc_string = ""
        del node.metadata_props[:]
    write_metadata(model, game)
    onnx.save(model, str(path))


def write_metadata(model, game):
    """Set an ONNX model's doc string and tabula metadata (model_metadata) for `game`."""
    import onnx
    model.doc_string = (f"tabula value network for {game.name} ({game.rules} rules, "
                        f"{game.pieces} pieces a side): {output_spec(game)['description']}")
    del model.metadata_props[:]
    onnx.helper.set_model_props(model, model_metadata(game))


def _finish(path, partial, common, codes, reference, spans, precision,
            fp32_path=None) -> dict:
    """Measure the parity of model `path` (written as partial[path]), then write its
    manifest (as the partial of PATH.json); spans: each output's range, high - low."""
    written = partial[path]
    model = OnnxValueModel(written, check_manifest=False)
    got = model.predict(codes)
    diff = np.abs(got - reference)
    of_range = diff.reshape(len(diff), -1) / spans
    parity = {"positions": len(codes), "against": "pytorch", "max_abs_diff": float(diff.max()),
              "mean_abs_diff": float(diff.mean()), "max_of_range": float(of_range.max())}
    if fp32_path is not None:
        parity["max_abs_diff_vs_fp32"] = float(
            np.abs(got - OnnxValueModel(fp32_path, check_manifest=False).predict(codes)).max())
    elif parity["max_of_range"] > PARITY_BOUND:
        raise ExportError(f"ONNX output differs from PyTorch by {parity['max_of_range']:.2e} "
                          f"of an output's range > {PARITY_BOUND:.0e}; model not usable")
    manifest = {**common, "precision": precision, "file": path.name,
                "bytes": written.stat().st_size, "sha256": sha256_file(written),
                "parity": parity}
    manifest_path = path.with_suffix(".json")
    partial[manifest_path].write_text(json.dumps(manifest, indent=2) + "\n")
    return {"model": str(path), "manifest": str(manifest_path), "bytes": manifest["bytes"],
            "parity": parity}
