"""The model cards' examples run as written: the Python one with onnxruntime, the
JavaScript one under Node.js with a stand-in for onnxruntime-node that answers
with the real model's values (computed here) for the codes it is asked about, so
a wrong packing of positions or a wrong move worth shows up as a wrong answer."""
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from export.model_file import OnnxValueModel

ROOT = Path(__file__).resolve().parent.parent
CARDS = {"ur7": ("4 -> 7", "the first player wins 51.6%"),
         "senet4": ("26 -> 29", "white wins 50.6%")}

STAND_IN = """
const values = JSON.parse(process.env.VALUES);
class Tensor { constructor(type, data, dims) { this.data = data; } }
const InferenceSession = {create: async () => ({run: async ({codes}) => ({
  win_probability: {data: Float32Array.from(Array.from(codes.data, (c) => values[c.toString()]))},
})})};
module.exports = {Tensor, InferenceSession};
"""


def blocks(card: Path, language: str) -> list[str]:
    return re.findall(rf"```{language}\n(.*?)```", card.read_text(), re.S)


@pytest.mark.parametrize("name", sorted(CARDS))
def test_every_model_has_a_card_with_what_a_card_holds(name):
    card = ROOT / "models" / f"{name}.MODEL_CARD.md"
    text = card.read_text()
    for heading in ("## Quality, measured exactly", "## Training", "## Intended use",
                    "## Limits", "## Input: packed positions", "## Choosing a move"):
        assert heading in text, heading
    manifest = json.loads((ROOT / "models" / f"{name}.json").read_text())
    assert f"{manifest['parameters']:,}" in text and f"{manifest['bytes']:,}" in text
    assert manifest["data_sha256"][:8] in text and manifest["table_sha256"][:8] in text


@pytest.mark.parametrize("name", sorted(CARDS))
def test_the_python_example_runs(name):
    code, = blocks(ROOT / "models" / f"{name}.MODEL_CARD.md", "python")
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    move, start = CARDS[name]
    assert start in done.stdout and f"play {move}" in done.stdout


@pytest.mark.skipif(shutil.which("node") is None, reason="needs Node.js")
@pytest.mark.parametrize("name", sorted(CARDS))
def test_the_javascript_example_packs_and_picks_as_the_python_rules_do(name, tmp_path):
    code, = blocks(ROOT / "models" / f"{name}.MODEL_CARD.md", "javascript")
    model = OnnxValueModel(ROOT / "models" / f"{name}.onnx")
    game = model.game
    # every position the example may ask about: the start and the results of the
    # moves of its position for every throw, valued by the real model
    codes = [game.start]
    for throw in game.throws:
        for position in _example_positions(game):
            codes += [m["position"] for m in game.legal_moves(position, int(throw))]
    values = dict(zip((str(int(c)) for c in codes), model.predict(codes).tolist()))
    (tmp_path / "node_modules" / "onnxruntime-node").mkdir(parents=True)
    (tmp_path / "node_modules" / "onnxruntime-node" / "index.js").write_text(STAND_IN)
    (tmp_path / "example.js").write_text(code)
    done = subprocess.run(["node", "example.js"], cwd=tmp_path, capture_output=True,
                          text=True, timeout=60, env={"VALUES": json.dumps(values),
                                                      "PATH": "/usr/bin:/bin"})
    assert done.returncode == 0, done.stderr
    assert "NaN" not in done.stdout, "the example packed a position the rules do not reach"
    assert f"play {CARDS[name][0]}" in done.stdout, done.stdout
    start_value = float(done.stdout.split()[2 if name == "senet4" else 3])
    assert np.isclose(start_value, values[str(game.start)], atol=1e-6)


def _example_positions(game):
    """The position each card's example decides in (as its Python example writes it)."""
    if game.name == "ur":
        return [game.position_from_json({"me": [4, 6], "me_waiting": 5, "opp": [7, 8],
                                         "opp_waiting": 5})]
    return [game.position_from_json({"me": [12, 26], "opp": [13, 14, 20]})]
