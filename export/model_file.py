"""An exported model opened for inference with onnxruntime, checked against its manifest."""
import json
from pathlib import Path

import numpy as np

from games import get_game
from infra.errors import TabulaError
from infra.manifest import missing_fields, sha256_file


class ModelError(TabulaError):
    """A model file that is missing, unreadable or made for another game."""


class OnnxValueModel:
    """predict(codes) -> the mover's winning chance (float64), by onnxruntime."""

    def __init__(self, path, game: str | None = None, pieces: int | None = None,
                 check_manifest=True, threads: int | None = None):
        import onnxruntime as ort
        self.path = Path(path)
        if not self.path.is_file():
            raise ModelError(f"no model file {self.path}")
        self.manifest = None
        manifest_path = self.path.with_suffix(".json")
        if check_manifest:
            if not manifest_path.is_file():
                raise ModelError(f"{self.path} has no manifest {manifest_path.name} beside it")
            self.manifest = json.loads(manifest_path.read_text())
            self.game = get_game(self.manifest["game"], int(self.manifest["pieces"]))
            if game is not None and game != self.game.name:
                raise ModelError(f"{self.path} is a model of {self.game.name}, not of {game}")
            if pieces is not None and pieces != self.game.pieces:
                raise ModelError(f"{self.path} was trained with pieces={self.game.pieces}, "
                                 f"not pieces={pieces}")
        options = ort.SessionOptions()
        if threads:
            options.intra_op_num_threads = threads
        try:
            self.session = ort.InferenceSession(str(self.path), options,
                                                providers=["CPUExecutionProvider"])
        except Exception as err:  # noqa: BLE001 - any unloadable file gets one line
            raise ModelError(f"{self.path} is not a loadable ONNX model ({err})") from None
        self.input = self.session.get_inputs()[0].name

    def verify(self) -> dict:
        """The file's SHA-256 against its manifest, the schema's fields, and values in
        [0, 1] from the start position and 1,000 positions drawn within layers."""
        from games.sampling import uniform_positions
        sha256 = sha256_file(self.path)
        missing = missing_fields(self.manifest)
        codes = np.concatenate([[self.game.start], uniform_positions(self.game, 1000, 0)])
        values = self.predict(codes)
        sane = bool(np.isfinite(values).all() and (values >= 0).all() and (values <= 1).all())
        sha_ok = sha256 == self.manifest.get("sha256")
        return {"model": str(self.path), "sha256_ok": sha_ok, "sha256": sha256,
                "values_ok": sane, "missing_fields": missing,
                "ok": sha_ok and sane and not missing}

    def predict(self, codes) -> np.ndarray:
        codes = np.ascontiguousarray(codes, dtype=np.int64)
        if len(codes) == 0:
            return np.empty(0)
        return self.session.run(None, {self.input: codes})[0].astype(np.float64)
