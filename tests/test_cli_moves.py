"""`tabula moves`: answers, JSON lines, and one-line errors with exit status 2."""
import json
import subprocess
import sys

import pytest

from tabula.cli import main


def run_cli(capsys, *argv):
    try:
        status = main(list(argv))
    except SystemExit as stop:  # argparse
        status = stop.code
    out, err = capsys.readouterr()
    return status, out, err


def test_moves_json_for_senet_opening_two(capsys):
    status, out, _ = run_cli(capsys, "moves", "senet", "--position", "start", "--throw", "2",
                             "--json")
    assert status == 0
    assert json.loads(out) == {"moves": [{"from": 9, "to": 11, "position": {
        "me": [2, 4, 6, 8, 10], "opp": [1, 3, 5, 7, 11]}, "again": False, "over": False}]}


def test_moves_human_output_marks_extra_throws_and_wins(capsys):
    position = json.dumps({"me": [14], "me_waiting": 0, "opp": [3], "opp_waiting": 0})
    status, out, _ = run_cli(capsys, "moves", "ur", "--pieces", "1", "--position", position,
                             "--throw", "1")
    assert status == 0 and "wins the game" in out and "off" in out


def test_moves_input_file_answers_each_line(tmp_path, capsys):
    queries = tmp_path / "q.jsonl"
    queries.write_text(json.dumps({"position": "start", "throw": 2}) + "\n\n"
                       + json.dumps({"position": {"me": [5], "me_waiting": 0, "opp": [8],
                                                  "opp_waiting": 0}, "throw": 3}) + "\n")
    status, out, _ = run_cli(capsys, "moves", "ur", "--input", str(queries))
    answers = [json.loads(line) for line in out.splitlines()]
    assert status == 0 and len(answers) == 2
    assert [m["to"] for m in answers[0]["moves"]] == [2]
    assert answers[1] == {"moves": []}


@pytest.mark.parametrize("argv,problem", [
    (["moves", "chess", "--position", "start", "--throw", "1"], "unknown game"),
    (["moves", "ur", "--position", "start", "--throw", "5"], "throw 5 is impossible"),
    (["moves", "senet", "--position", "start", "--throw", "0"], "throw 0 is impossible"),
    (["moves", "senet", "--position", '{"me": [27], "opp": [1]}', "--throw", "1"], "27"),
    (["moves", "senet", "--position", '{"me": [1, 1], "opp": [2]}', "--throw", "1"],
     "two pieces"),
    (["moves", "ur", "--position", '{"me": [20], "me_waiting": 0, "opp": [], '
                                   '"opp_waiting": 0}', "--throw", "1"], "off the track"),
    (["moves", "ur", "--position", "{not json", "--throw", "1"], "not valid JSON"),
    (["moves", "ur", "--pieces", "9", "--position", "start", "--throw", "1"], "pieces 1..7"),
    (["moves", "ur", "--input", "/no/such/file.jsonl"], "No such file"),
    (["moves", "ur", "--bogus"], "unrecognized arguments"),
])
def test_bad_input_gives_one_line_and_status_2(capsys, argv, problem):
    status, out, err = run_cli(capsys, *argv)
    assert status == 2
    assert problem in err and len(err.strip().splitlines()) == 1
    assert "Traceback" not in err and out == ""


def test_bad_line_in_input_file_is_named(tmp_path, capsys):
    queries = tmp_path / "q.jsonl"
    queries.write_text('{"position": "start", "throw": 1}\n{"position": "start"}\n')
    status, _, err = run_cli(capsys, "moves", "ur", "--input", str(queries))
    assert status == 2 and "line 2" in err


def test_console_command_runs_as_a_process():
    done = subprocess.run([sys.executable, "-m", "tabula", "moves", "ur", "--position",
                           '{"me": [3, 3]}', "--throw", "1"], capture_output=True, text=True)
    assert done.returncode == 2
    assert done.stderr.startswith("tabula moves: error:") and "Traceback" not in done.stderr
    help_text = subprocess.run([sys.executable, "-m", "tabula", "moves", "--help"],
                               capture_output=True, text=True).stdout
    assert "--position" in help_text and "--input" in help_text


def test_the_help_names_every_game_and_rule_set_and_their_default_pieces(capsys):
    """tabula --help lists the registered games with their rule sets; --pieces names a
    rule set's own default where it is not the game's (Blitz: 5)."""
    for argv in (["--help"], ["solve", "--help"]):
        with pytest.raises(SystemExit):
            main(argv)
    text = " ".join(capsys.readouterr().out.split())
    assert "ur: finkel, masters, blitz" in text and "senet: kendall" in text
    assert "ur 1..7, default 7 (blitz rules: 5" in text   # the tests add "tiny"
