"""Bad input, as a hostile but fair user types it: every case ends in one line on
stderr and exit status 2 (or a correct answer), never a traceback. Property-based
(hypothesis) for JSON positions, throws and seeds; table-driven for files and
settings."""
import contextlib
import io
import json
from pathlib import Path

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from tabula.cli import main

JSON = st.recursive(st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False)
                    | st.text(max_size=5),
                    lambda inner: st.lists(inner, max_size=4)
                    | st.dictionaries(st.sampled_from(["me", "opp", "me_waiting",
                                                       "opp_waiting", "x"]), inner,
                                      max_size=5),
                    max_leaves=12)


def run(args) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main(list(args))
        except SystemExit as exit:   # argparse's refusals (also one line, status 2)
            code = exit.code
    return code, out.getvalue(), err.getvalue()


def refused_in_one_line(code, err):
    return code == 2 and len(err.strip().splitlines()) == 1 and "Traceback" not in err


@settings(max_examples=150, deadline=None)
@given(position=JSON, game=st.sampled_from(["ur", "senet"]))
def test_any_json_position_is_answered_or_refused_in_one_line(position, game):
    code, out, err = run(["moves", game, "--position", json.dumps(position), "--throw", "2",
                          "--json"])
    assert code == 0 and "moves" in json.loads(out) or refused_in_one_line(code, err), err


@settings(max_examples=100, deadline=None)
@given(throw=st.one_of(st.integers(), st.floats(), st.booleans(), st.text(max_size=6)))
def test_any_throw_in_a_query_file(tmp_path_factory, throw):
    path = tmp_path_factory.mktemp("q") / "q.jsonl"
    path.write_text(json.dumps({"position": "start", "throw": throw}) + "\n")
    code, out, err = run(["moves", "ur", "--input", str(path)])
    legal = type(throw) is int and 0 <= throw <= 4
    assert (code == 0) == legal and (legal or refused_in_one_line(code, err)), err


@settings(max_examples=60, deadline=None)
@given(seed=st.one_of(st.integers(min_value=-2**70, max_value=2**70), st.text(max_size=8)))
@example(seed="0")       # a seed typed as text is as good as the number
@example(seed="1_0")     # but only in plain digits
def test_any_seed(seed):
    text = str(seed)
    code, _, err = run(["play", "ur", "--level", "apprentice", "--seed", text, "--show-rules"])
    good = text.isascii() and text.isdigit() and int(text) < 2**64
    assert code == 0 if good else refused_in_one_line(code, err)


@pytest.mark.parametrize("text", [
    "[" * 100_000 + "]" * 100_000,                       # nested too deeply
    '{"me": [' + "9" * 5000 + '], "me_waiting": 0, "opp": [], "opp_waiting": 0}',
    '{"me": [1], "me_waiting": NaN, "opp": [], "opp_waiting": 0}',
    '{"me": [1], "me_waiting": Infinity, "opp": [], "opp_waiting": 0}',
    "",
    "start!",
])
def test_positions_that_choke_parsers(text):
    code, _, err = run(["moves", "ur", "--position", text, "--throw", "2"])
    assert refused_in_one_line(code, err), err


@pytest.mark.parametrize("content", [b"\xff\xfe\x00\x01garbage", b"{not json\n", b"[1, 2]\n",
                                     b'{"position": "start"}\n'])
def test_query_files(tmp_path, content):
    path = tmp_path / "q.jsonl"
    path.write_bytes(content)
    for args in (["moves", "ur", "--input", str(path)],):
        code, _, err = run(args)
        assert refused_in_one_line(code, err), err


@pytest.mark.parametrize("yaml_text", [
    b"\xff\xfe not utf-8",
    b"game: ur\npieces: two\n",
    b"game: [unclosed\n",
    b"- just\n- a list\n",
    b"game: chess\n",
    b"game: ur\nsolve: {nonsense: 1}\n",
    b"game: ur\ndatagen: {games: -5}\n",          # the checks of tabula datagen
    b"game: ur\ntrain: {patience: -1}\n",
    b"game: ur\nsolve: {tol: x}\n",
    b"game: ur\nreport: {games: 0}\n",
    b"game: ur\ndatagen: [1, 2]\n",
    b"game: ur\nreport: {players: random}\n",
    b"game: ur\ndatagen: {explore: .nan}\n",     # NaN passes any comparison with a bound
    b"game: ur\nsolve: {tol: .inf}\n",
    b"game: ur\nworkdir: 5\n",                  # checked before any work (issue 65)
    b"game: ur\nworkdir: [a]\n",
    b"game: ur\nname: {a: 1}\n",
    b"game: ur\npieces: true\n",
    b"game: ur\na: &x [1, 2]\nb: [*x, *x]\n",   # aliases: a billion laughs in a few lines
    b"game: ur\nsolve: " + b"[" * 10_000 + b"]" * 10_000 + b"\n",   # 10,000 deep
    b"game: !!python/object/apply:os.system [echo hi]\n",
])
def test_pipeline_configs(tmp_path, yaml_text):
    path = tmp_path / "p.yaml"
    path.write_bytes(yaml_text)
    code, _, err = run(["pipeline", str(path)])
    assert refused_in_one_line(code, err), err


@pytest.mark.parametrize("yaml_text, said", [
    (b"game: ur\ntable: 5\n", "table must be text"),
    (b"game: ur\ntable: [a]\n", "table must be text"),
    (b"game: ur\nworkdir: [a]\n", "workdir must be text"),
    (b"game: ur\ndistill: &a {sims: 5}\ntrain: *a\n", "anchors and aliases"),
    (b"game: ur\ntrain: " + b"{a: " * 60 + b"1" + b"}" * 60 + b"\n", "nested more than 50"),
    (b"game: ur\nname: [&a [x, x, x, x, x, x, x, x, x, x], " + b", ".join(   # 10**6 items
        b"&%c [%s]" % (c + 1, b", ".join([b"*%c" % c] * 10)) for c in range(97, 102)) + b"]\n",
     "anchors and aliases"),
])
def test_distill_recipes_are_checked_before_any_work(tmp_path, yaml_text, said):
    """tabula distill with a table or workdir of the wrong type, or YAML built to blow
    up, is one line at once (issue 65: a TypeError after 27 s, or a minute's work)."""
    path = tmp_path / "r.yaml"
    path.write_bytes(yaml_text)
    code, _, err = run(["distill", str(path)])
    assert refused_in_one_line(code, err) and said in err and len(err) < 500, err[:500]


def test_an_export_of_a_run_whose_config_builds_objects_is_one_line(tmp_path, ur3_run):
    """A run folder whose config.yaml holds a Python tag: refused in one line, not by a
    ConstructorError traceback (issue 65)."""
    import shutil
    run_dir = tmp_path / "version_0"
    shutil.copytree(ur3_run, run_dir)
    (run_dir / "config.yaml").write_text("seed_everything: !!python/object/apply:os.system "
                                         "[echo hi]\n")
    checkpoint = next((run_dir / "checkpoints").glob("*.ckpt"))
    code, _, err = run(["export", str(checkpoint), "--out", str(tmp_path / "m.onnx")])
    assert refused_in_one_line(code, err) and "not plain YAML" in err, err


@pytest.mark.parametrize("flag", [["--explore", "nan"], ["--val-frac", "nan"],
                                  ["--test-frac", "inf"], ["--explore=-inf"]])
def test_settings_that_are_not_numbers_are_refused(tmp_path, tables, flag):
    """NaN and the infinities are refused like any value out of bounds, before any
    work: a NaN split fraction would leave the validation split silently empty."""
    out = tmp_path / "d.h5"
    code, _, err = run(["datagen", "ur", "--table", str(tables[("ur", 2)].path), "--out",
                        str(out), *flag])
    assert refused_in_one_line(code, err) and f"{flag[0].split('=')[0]} must be a finite number" \
        in err, err   # the flag as written (--val-frac), not the setting's field
    assert not out.exists()
    code, _, err = run(["solve", "ur", "--pieces", "2", "--out", str(out), "--tol", "nan"])
    assert refused_in_one_line(code, err) and "finite number" in err, err


@pytest.mark.parametrize("sample", ["0", "-1", "1e3", "x"])
def test_a_sample_that_is_not_a_positive_count_is_refused(tables, sample):
    table = str(tables[("ur", 2)].path)
    for command in (["table", "verify", table], ["verify", table]):
        code, _, err = run([*command, "--sample", sample])
        assert refused_in_one_line(code, err) and "whole number of positions" in err, err


def test_a_named_file_that_does_not_exist_is_refused_not_skipped(tmp_path):
    """`tabula verify MODEL --data nope.h5` used to say ok (the chain check skipped the
    missing file as if it had not been named)."""
    for flag in ("--data", "--table"):
        model = Path(__file__).resolve().parent.parent / "models" / "ur7.onnx"
        code, out, err = run(["verify", str(model), flag, str(tmp_path / "nope.h5")])
        assert refused_in_one_line(code, err) and "no file" in err and not out, err


def test_datagen_refuses_a_one_sided_table(tmp_path):
    """A one-sided bear-off table holds no values to label positions with (it was a
    KeyError: 'win')."""
    table, out = tmp_path / "os.h5", tmp_path / "d.h5"
    assert run(["solve", "bearoff", "--checkers", "2", "--one-sided", "--out", str(table),
                "--quiet"])[0] == 0
    code, _, err = run(["datagen", "bearoff", "--checkers", "2", "--table", str(table),
                        "--out", str(out), "--quiet"])
    assert refused_in_one_line(code, err) and "one-sided" in err, err
    assert not out.exists()


def test_files_of_the_wrong_kind(tmp_path, tables):
    garbage = tmp_path / "garbage.bin"
    garbage.write_bytes(b"\xff\xfe\x00 not text")
    folder = tmp_path / "folder"
    folder.mkdir()
    table = str(tables[("ur", 2)].path)
    cases = [["train", "--config", str(garbage)],
             ["value", "ur", "--pieces", "2", "--table", table, "--input", str(garbage)],
             ["value", "ur", "--pieces", "2", "--table", str(garbage), "--position", "start"],
             ["datagen", "ur", "--pieces", "2", "--table", table, "--out", str(folder),
              "--force"],
             ["export", str(garbage), "--out", str(tmp_path / "m.onnx")],
             ["eval", "regret", "ur", "--pieces", "2", "--table", table, "--player",
              f"net:{garbage}"],
             ["value", "ur", "--pieces", "2", "--table", table, "--position",
              '{"me": [], "me_waiting": 0, "opp": [5], "opp_waiting": 1}']]
    for args in cases:
        code, _, err = run(args)
        assert refused_in_one_line(code, err), (args, err)
    assert list(folder.iterdir()) == [] and not list(tmp_path.glob("*.partial"))


def test_typed_into_play_never_kills_it(monkeypatch):
    monkeypatch.setattr("sys.stdin", io.StringIO("\u00b2\n" + "9" * 5000 + "\n-1\n\x00\nq\n"))
    code, out, err = run(["play", "ur", "--pieces", "2", "--level", "apprentice", "--seed",
                          "3", "--hotseat"])
    assert code == 0 and "bye" in out and err == ""
