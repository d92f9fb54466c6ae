"""An exported model opened for inference with onnxruntime, checked against the
metadata inside the ONNX file and the manifest beside it."""
from pathlib import Path

import numpy as np

from tabula.games import game_of
from tabula.infra.errors import TabulaError
from tabula.infra.manifest import missing_fields, sha256_file
from tabula.infra.schemas import ModelManifest, ModelMetadata, check, load_json
from tabula.solver.values import value_names, value_ranges

from .sampling import uniform_positions


FORMAT, FORMAT_VERSION = "tabula-onnx-value", 1
FIRST_WEIGHT = "net.mlp.0.weight"   # the first layer's weights, (width, features)
OUTPUT_MEANING = "probability that the player about to throw wins"
RACE_OUTPUT_MEANING = ("for the player about to throw: the cubeless chances (win, and "
                       "with gammons win_gammon, lose_gammon), then the money equities per "
                       "unit of cube value when not doubling now with the cube centered, "
                       "owned, unavailable (docs/rules/bearoff.md)")

CONTACT_OUTPUT_MEANING = ("for the player about to throw: the cubeless chances (win, "
                          "win_gammon, win_backgammon, lose_gammon, lose_backgammon: the "
                          "gammons and backgammons among the wins and the losses), then the "
                          "money equities per unit of cube value when not doubling now with "
                          "the cube centered, owned, unavailable, and centered under the "
                          "Jacoby rule (docs/rules/backgammon.md)")


def output_spec(game) -> dict:
    """The model's output: its name, shape and meaning (a race table's nets give one
    column for each value of solver.values)."""
    names = value_names(game)
    if len(names) == 1:
        return {"name": "win_probability", "dtype": "float32", "shape": ["batch"],
                "description": OUTPUT_MEANING}
    return {"name": "values", "dtype": "float32", "shape": ["batch", len(names)],
            "columns": list(names),
            "description": CONTACT_OUTPUT_MEANING if "win_backgammon" in names else
            RACE_OUTPUT_MEANING}


def model_input(codes) -> np.ndarray:
    """Codes as a model file takes them: int64 [batch]; a game whose codes are complex
    numbers (standard backgammon: two 40-bit side keys) as int64 [batch, 2], the two
    parts side by side."""
    codes = np.asarray(codes)
    if np.iscomplexobj(codes):
        codes = np.stack([codes.real, codes.imag], axis=-1)
    return np.ascontiguousarray(codes, dtype=np.int64)


def input_shape(game) -> list:
    return ["batch", 2] if np.dtype(game.code_dtype).kind == "c" else ["batch"]


class ModelError(TabulaError):
    """A model file that is missing, unreadable or made for another game."""


def model_metadata(game) -> dict:
    """What an exported model carries inside its ONNX file (metadata_props), so that the
    file alone says what it plays and how to feed it."""
    return {"tabula.format": FORMAT, "tabula.format_version": str(FORMAT_VERSION),
            "tabula.game": game.name, "tabula.rules": game.rules,
            "tabula.pieces": str(game.pieces), "tabula.input": f"codes: int64 "
            f"[{', '.join(map(str, input_shape(game)))}], packed positions seen by the "
            "player about to throw",
            "tabula.code_layout": game.presentation.code_layout,
            "tabula.features": game.encoding.doc(),
            "tabula.output": _output_text(output_spec(game))}


def _output_text(spec) -> str:
    shape = ", ".join(str(n) for n in spec["shape"])
    columns = f" (columns {', '.join(spec['columns'])})" if "columns" in spec else ""
    return f"{spec['name']}: float32 [{shape}]{columns}, {spec['description']}"


SPOT_POSITIONS = 64   # positions whose values a model is checked on when opened


class OnnxValueModel:
    """predict(codes) -> the mover's winning chance (float64), by onnxruntime (for race
    games, (n, k): each value of solver.values)."""

    def __init__(self, path, game: str | None = None, pieces: int | None = None,
                 check_manifest=True, threads: int | None = None, rules: str | None = None):
        import onnxruntime as ort
        self.path = Path(path)
        if not self.path.is_file():
            raise ModelError(f"no model file {self.path}")
        options = ort.SessionOptions()
        if threads:
            options.intra_op_num_threads = threads
        try:
            self.session = ort.InferenceSession(str(self.path), options,
                                                providers=["CPUExecutionProvider"])
        except Exception as err:  # noqa: BLE001 - any unloadable file gets one line
            raise ModelError(f"{self.path} is not a loadable ONNX model ({err})") from None
        self.input = self.session.get_inputs()[0].name
        self.metadata = dict(self.session.get_modelmeta().custom_metadata_map)
        if self.metadata.get("tabula.format") != FORMAT:
            raise ModelError(f"{self.path} carries no tabula metadata (not made by tabula "
                             "export, or by a version before it wrote them): export it again")
        said = check(ModelMetadata, self.metadata, f"{self.path}: broken tabula metadata",
                     ModelError)
        self.game = game_of(said, str(self.path), ModelError)
        self.value_names = value_names(self.game)   # what its outputs are, in order
        self.check_plays(game, pieces, rules)
        self.manifest = self.read_manifest() if check_manifest else None
        if check_manifest and not self.values_sane(SPOT_POSITIONS):
            raise ModelError(f"{self.path} answers values that are not chances or equities "
                             "(outside their range, or not numbers) on positions of its game: "
                             "export it again")

    def check_plays(self, game: str | None = None, pieces: int | None = None,
                    rules: str | None = None):
        """A ModelError unless the model plays the game, pieces and rules asked (None:
        any)."""
        other = self.game.differs_from(game, pieces, rules)
        if other:
            raise ModelError(f"{self.path} is a model of {self.game.describe()}, {other}")

    def read_manifest(self, check_sha: bool = True) -> dict:
        """The manifest beside the model, which must describe the same game variant and
        (with check_sha) this very file."""
        path = self.path.with_suffix(".json")
        if not path.is_file():
            raise ModelError(f"{self.path} has no manifest {path.name} beside it")
        manifest = load_json(path, ModelError)
        check(ModelManifest, manifest, str(path), ModelError)
        said = (manifest.get("game"), manifest.get("rules"), manifest.get("pieces"))
        if said != (self.game.name, self.game.rules, self.game.pieces):
            raise ModelError(f"{path} describes {said[0]} ({said[1]}, pieces={said[2]}) but "
                             f"the model in {self.path.name} plays {self.game.name} "
                             f"({self.game.rules}, pieces={self.game.pieces})")
        if check_sha and manifest.get("sha256") != sha256_file(self.path):
            raise ModelError(f"{self.path} is not the model its manifest {path.name} "
                             "describes (SHA-256 differs): export it again")
        return manifest

    def values_sane(self, positions: int) -> bool:
        """Whether the network's values of the start and `positions` positions drawn
        within layers are numbers in their ranges (solver/values.py)."""
        codes = np.concatenate([[self.game.start], uniform_positions(self.game, positions, 0)])
        values = self.predict(codes).reshape(len(codes), -1)
        low, high = (np.array(bound) for bound in value_ranges(self.game))
        return bool(np.isfinite(values).all() and (values >= low - 1e-6).all()
                    and (values <= high + 1e-6).all())

    def verify(self) -> dict:
        """The file's SHA-256 against its manifest, the schema's fields, and values in
        their ranges from the start position and 1,000 positions drawn within layers."""
        sha256 = sha256_file(self.path)
        missing = missing_fields(self.manifest)
        sane = self.values_sane(1000)
        sha_ok = sha256 == self.manifest.get("sha256")
        metadata_ok = self.metadata == model_metadata(self.game)
        inputs_ok = self.input_width() == self.game.encoding.n_features
        return {"model": str(self.path), "sha256_ok": sha_ok, "sha256": sha256,
                "metadata_ok": metadata_ok, "inputs_ok": inputs_ok, "values_ok": sane,
                "missing_fields": missing,
                "ok": sha_ok and metadata_ok and inputs_ok and sane and not missing}

    def input_width(self) -> int | None:
        """How many features the network's first layer takes (None: no such layer): a
        network made for another variant than its metadata says takes another number."""
        import onnx   # here, not above: verify alone needs the graph
        for tensor in onnx.load(str(self.path)).graph.initializer:
            if tensor.name == FIRST_WEIGHT and len(tensor.dims) == 2:
                return int(tensor.dims[1])
        return None

    def predict(self, codes) -> np.ndarray:
        codes = model_input(codes)
        if len(codes) == 0:
            return np.empty(0)
        return self.session.run(None, {self.input: codes})[0].astype(np.float64)
