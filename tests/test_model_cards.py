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

from tabula.runtime.model_file import OnnxValueModel

ROOT = Path(__file__).resolve().parent.parent
# per card: what its Python example prints, the move its examples pick, the position
# its examples value first (JSON) and the word of the JavaScript output holding that value
CARDS = {"einstein3": {"python": "red, first to throw, wins 60.3%", "play": "(2,2) -> (3,3)",
                       "word": 2, "first": "start",
                       "decides": {"me": {"1": [2, 2], "3": [1, 3]},
                                   "opp": {"1": [3, 3], "2": [4, 2]}}},
         "einstein6": {"python": "red, first to throw, wins 51.2%", "play": "(1,3) -> (2,3)",
                       "word": 2, "first": "start",
                       "decides": {"me": {"1": [2, 2], "3": [1, 3]},
                                   "opp": {"1": [3, 3], "2": [4, 2]}}},
         "ur7": {"python": "the first player wins 51.6%", "play": "4 -> 7", "word": 3,
                 "first": "start", "decides": {"me": [4, 6], "me_waiting": 5,
                                               "opp": [7, 8], "opp_waiting": 5}},
         "ur-blitz5": {"python": "the first player wins 50.4%", "play": "4 -> 7", "word": 3,
                       "first": "start", "decides": {"me": [4, 6], "me_waiting": 3,
                                                     "opp": [7, 8], "opp_waiting": 3}},
         "ur-masters7": {"python": "the first player wins 50.5%", "play": "4 -> 7", "word": 3,
                         "first": "start", "decides": {"me": [4, 6], "me_waiting": 5,
                                                       "opp": [7, 8], "opp_waiting": 5}},
         "senet4": {"python": "white wins 50.4%", "play": "26 -> 29", "word": 2,
                    "first": "start", "decides": {"me": [12, 26], "opp": [13, 14, 20]}},
         "checkers5": {"python": "black, to move, scores 90.2%", "play": "27-32", "word": 2,
                       "first": {"turn": "black", "black": {"men": [22, 27], "kings": [31]},
                                 "white": {"men": [], "kings": [10, 30]}},
                       "decides": {"turn": "black", "black": {"men": [22, 27], "kings": [31]},
                                   "white": {"men": [], "kings": [10, 30]}}},
         "backgammon3": {"python": "cube: no double", "play": "13/7*/6", "word": 5,
                         "first": {"me": [24, 13, 6], "opp": [20, 18, 8]},
                         "decides": {"me": [24, 13, 6], "opp": [20, 18, 8]}},
         "backgammon-standard15": {"python": "the player on roll at the start wins 52.6%",
                                   "play": "13/7 8/7", "word": 5, "first": "start",
                                   "decides": "start"},
         "bearoff10": {"python": "cube: double, take", "play": "to 2,0,0,3,0,0", "word": 5,
                       "first": {"me": [3, 0, 0, 3, 1, 0], "opp": [1, 0, 5, 0, 0, 1]},
                       "decides": {"me": [3, 0, 0, 3, 1, 0], "opp": [1, 0, 5, 0, 0, 1]}}}

STAND_IN = """
const values = JSON.parse(process.env.VALUES);   // code -> the model's row of outputs
class Tensor { constructor(type, data, dims) { this.data = data; this.dims = dims; } }
// a code of two parts (int64 [batch, 2]: standard backgammon) is keyed "first,second"
const keys = (codes) => codes.dims.length === 1 ? Array.from(codes.data, String)
  : Array.from({length: codes.dims[0]}, (_, i) => `${codes.data[2 * i]},${codes.data[2 * i + 1]}`);
const InferenceSession = {create: async () => ({run: async ({codes}) => ({
  [process.env.OUTPUT]: {data: Float32Array.from(keys(codes).flatMap((k) => values[k]))},
})})};
module.exports = {Tensor, InferenceSession};
"""


def key(code) -> str:
    """The stand-in's key of a code (STAND_IN)."""
    if np.iscomplexobj(code):
        return f"{int(code.real)},{int(code.imag)}"
    return str(int(code))


def position(game, spec):
    return game.start if spec == "start" else game.position_from_json(spec)


def blocks(card: Path, language: str) -> list[str]:
    return re.findall(rf"```{language}\n(.*?)```", card.read_text(), re.S)


@pytest.mark.parametrize("name", sorted(CARDS))
def test_every_model_has_a_card_with_what_a_card_holds(name):
    card = ROOT / "models" / f"{name}.MODEL_CARD.md"
    text = card.read_text()
    for heading in ("## Quality", "## Training", "## Intended use",
                    "## Limits", "## Input: packed positions", "## Choosing a move"):
        assert heading in text, heading
    manifest = json.loads((ROOT / "models" / f"{name}.json").read_text())
    assert f"{manifest['parameters']:,}" in text and f"{manifest['bytes']:,}" in text
    assert (manifest["data_sha256"] or "taught by self-play")[:8] in text
    # taught by a table, or by a search where no table exists (its data names the teacher)
    assert (manifest["table_sha256"] or "taught by tree search")[:8] in text


@pytest.mark.parametrize("name", sorted(CARDS))
def test_every_shipped_model_verifies_against_the_code_of_today(name):
    """Its metadata (the game, rules, code layout, features) is what tabula would write
    today, its bytes what its manifest says: a change to a game's description that
    shipped models do not carry fails here, not in a user's `tabula verify`."""
    for path in (ROOT / "models" / f"{name}.onnx", ROOT / "models" / f"{name}.int8.onnx"):
        report = OnnxValueModel(path).verify()
        assert report["ok"], report


@pytest.mark.parametrize("name", sorted(CARDS))
def test_the_python_example_runs(name):
    code, = blocks(ROOT / "models" / f"{name}.MODEL_CARD.md", "python")
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    card = CARDS[name]
    assert card["python"] in done.stdout and f"play {card['play']}" in done.stdout, done.stdout


@pytest.mark.skipif(shutil.which("node") is None, reason="needs Node.js")
@pytest.mark.parametrize("name", sorted(CARDS))
def test_the_javascript_example_packs_and_picks_as_the_python_rules_do(name, tmp_path):
    code, = blocks(ROOT / "models" / f"{name}.MODEL_CARD.md", "javascript")
    model = OnnxValueModel(ROOT / "models" / f"{name}.onnx")
    game = model.game
    # every position the example may ask about: the start and the results of the
    # moves of its position for every throw, valued by the real model
    card = CARDS[name]
    first, decides = position(game, card["first"]), position(game, card["decides"])
    codes = [first]
    for throw in game.throws:
        codes += [m["position"] for m in game.legal_moves(decides, int(throw))]
    rows = model.predict(codes).reshape(len(codes), -1).tolist()
    values = dict(zip((key(c) for c in codes), rows))
    (tmp_path / "node_modules" / "onnxruntime-node").mkdir(parents=True)
    (tmp_path / "node_modules" / "onnxruntime-node" / "index.js").write_text(STAND_IN)
    (tmp_path / "example.js").write_text(code)
    done = subprocess.run(["node", "example.js"], cwd=tmp_path, capture_output=True,
                          text=True, timeout=60,
                          env={"VALUES": json.dumps(values), "PATH": "/usr/bin:/bin",
                               "OUTPUT": model.manifest["output"]["name"]})
    assert done.returncode == 0, done.stderr
    assert "NaN" not in done.stdout, "the example packed a position the rules do not reach"
    assert f"play {card['play']}" in done.stdout, done.stdout
    first_value = float(done.stdout.split()[card["word"]])
    assert np.isclose(first_value, values[key(first)][0], atol=1e-6)
