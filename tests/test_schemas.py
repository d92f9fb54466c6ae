"""infra/schemas.py: each structure read from a file or a request is refused in one
line naming where and the field, never believed or a traceback (issue 47)."""
import json

import numpy as np
import pytest

from tabula.infra.schemas import (DataAttributes, ModelManifest, ModelMetadata,
                                  NewGameRequest, StageRecords, TableAttributes, check,
                                  load_json, read_json)

SHA = "ab" * 32
MANIFEST = {"format": "tabula-onnx-value", "game": "ur", "rules": "finkel", "pieces": 3,
            "sha256": SHA, "parameters": 1000, "file": "ur3.onnx"}
METADATA = {"tabula.format": "tabula-onnx-value", "tabula.game": "ur",
            "tabula.rules": "finkel", "tabula.pieces": "3"}
TABLE = {"game": "ur", "rules": "finkel", "pieces": np.int64(3), "sha256": SHA,
         "layers": "[[0, 0], [1, 0]]", "max_total": np.int64(-1),
         "tolerance": np.float64(1e-9), "max_residual": np.float64(5e-8),
         "machine": '{"cpu": "x", "cores": 2}'}


def refused(schema, data, field):
    with pytest.raises(ValueError) as caught:
        check(schema, data, "FILE")
    line = str(caught.value)
    assert line.startswith("FILE: ") and f"{field}:" in line and "\n" not in line, line
    return line


def test_good_structures_are_read_with_their_types():
    assert check(ModelManifest, MANIFEST, "m").pieces == 3
    assert check(ModelMetadata, METADATA, "m").pieces == 3     # text in ONNX metadata
    table = check(TableAttributes, TABLE, "t")
    assert table.layers == [(0, 0), (1, 0)] and table.max_total == -1
    assert table.machine == {"cpu": "x", "cores": 2} and table.start_value is None
    assert check(ModelManifest, {**MANIFEST, "extra": [1]}, "m").extra == [1]   # kept


@pytest.mark.parametrize("schema, data, field", [
    (ModelManifest, {**MANIFEST, "file": "../../../../etc/passwd"}, "file"),
    (ModelManifest, {**MANIFEST, "file": ""}, "file"),
    (ModelManifest, {**MANIFEST, "parameters": 10**300}, "parameters"),
    (ModelManifest, {**MANIFEST, "pieces": 7.5}, "pieces"),
    (ModelManifest, {**MANIFEST, "sha256": "x"}, "sha256"),
    (ModelManifest, {k: v for k, v in MANIFEST.items() if k != "game"}, "game"),
    (ModelMetadata, {**METADATA, "tabula.pieces": "9" * 5000}, "tabula.pieces"),
    (ModelMetadata, {**METADATA, "tabula.pieces": "three"}, "tabula.pieces"),
    (ModelMetadata, {**METADATA, "tabula.game": "u" * 5000}, "tabula.game"),
    (TableAttributes, {**TABLE, "max_total": "abc"}, "max_total"),
    (TableAttributes, {**TABLE, "layers": "[[1, 1], [2"}, "layers"),
    (TableAttributes, {**TABLE, "layers": "[[-1, 0]]"}, "layers.0.0"),
    (TableAttributes, {**TABLE, "machine": "{not json"}, "machine"),
    (TableAttributes, {**TABLE, "tolerance": "small"}, "tolerance"),
    (TableAttributes, {**TABLE, "start_value": 1.5}, "start_value"),
    (DataAttributes, {**TABLE, "data_sha256": SHA, "settings": "{", "counts": "{}"},
     "settings"),
    (StageRecords, {"solve": {"stamp": "a", "seconds": float("nan")}}, "solve.seconds"),
    (StageRecords, {"solve": []}, "solve"),
    (StageRecords, {"dance": {"stamp": "a", "seconds": 1}}, "dance.[key]"),
    (NewGameRequest, {"game": ["ur"]}, "game"),
    (NewGameRequest, {"game": "ur", "level": {"a": 1}}, "level"),
    (NewGameRequest, {"game": "ur", "pieces": True}, "pieces"),
    (NewGameRequest, {"game": "ur", "seed": -1}, "seed"),
    (NewGameRequest, {"game": "ur", "colour": "red"}, "colour"),
])
def test_a_structure_that_does_not_fit_is_one_line_naming_the_field(schema, data, field):
    refused(schema, data, field)


def test_json_files_are_refused_in_one_line_when_deep_large_or_not_json(tmp_path):
    path = tmp_path / "x.json"
    for content in ("[" * 5000 + "]" * 5000, "{", b"\xff\xfe", " " * (2 << 20)):
        (path.write_bytes if isinstance(content, bytes) else path.write_text)(content)
        with pytest.raises(ValueError, match=str(path)) as caught:
            load_json(path)
        assert "\n" not in str(caught.value)
    path.write_text(json.dumps({**MANIFEST, "pieces": 0}))
    with pytest.raises(ValueError, match="x.json: pieces: "):
        read_json(path, ModelManifest)
