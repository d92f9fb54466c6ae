"""tabula play driven through its input stream: whole games, what it announces and
teaches, bad input refused."""
import io
import re

import pytest

from tabula.cli import main


def play(monkeypatch, capsys, args, typed):
    monkeypatch.setattr("sys.stdin", io.StringIO(typed))
    code = main(["play", *args])
    return code, capsys.readouterr()


def test_a_full_game_against_the_computer(tables, monkeypatch, capsys):
    table = str(tables[("ur", 3)].path)
    code, out = play(monkeypatch, capsys, ["ur", "--pieces", "3", "--level", "apprentice",
                                           "--table", table, "--seed", "4"],
                     "x\n0\n?\nrules\n" + "1\n" * 400)
    assert code == 0
    text = out.out
    assert text.startswith("ur with 3 pieces a side: you play light against the computer "
                           "at level apprentice")
    assert "The Royal Game of Ur" in text and "House of" not in text
    assert "# The Royal" not in text and "**" not in text   # rendered, not raw Markdown
    assert "'x' is not a move number" in text and "'0' is not a move number" in text
    assert "moves from best to worst (exact, from the table)" in text
    assert "you win with" in text and "loses 0.00 points" in text
    assert "[*]" in text and "you (light) throw " in text and "the computer (dark) throws" in text
    assert "captures the piece on" in text and "lands on a rosette" in text
    assert "you (light) win" in text or "the computer (dark) wins" in text
    assert "How light played (exact, from the table):" in text
    assert "played best" in text and "your winning chance:" in text
    assert "mistake 2 to 5" in text and re.search(r"  throw \d+ \(\d\): played", text)
    assert re.search(r"\n  \d+\. you \(light\) throw \d", text)   # throws numbered as reviewed


def test_hotseat_senet_to_the_end_and_master_with_table(tables, monkeypatch, capsys):
    code, out = play(monkeypatch, capsys, ["senet", "--pieces", "1", "--hotseat", "--seed", "2"],
                     "2\n" * 5 + "1\n" * 400)
    assert code == 0 and "two people at one screen" in out.out
    assert "[ W]" in out.out and "<-" in out.out and "bears off the last piece" in out.out
    table = str(tables[("ur", 2)].path)
    code, out = play(monkeypatch, capsys, ["ur", "--pieces", "2", "--level", "master",
                                           "--table", table, "--side", "dark", "--seed", "1"],
                     "q\n")
    assert code == 0 and "you play dark" in out.out and "bye" in out.out


def test_senet_with_the_default_level_plays_the_shipped_variant(monkeypatch, capsys):
    code, out = play(monkeypatch, capsys, ["senet", "--seed", "3"], "q\n")
    assert code == 0 and out.out.startswith("senet with 4 pieces a side")
    code, out = play(monkeypatch, capsys, ["senet", "--pieces", "3"], "")
    assert code == 2 and "add --pieces 4" in out.err


def test_rules_of_every_game(capsys):
    """Rendered for a terminal: headings without their marks, lists as bullets (a
    list right after its paragraph too, as in Senet's special squares and the
    bear-off's take or pass), no developer material (options, how tabula writes a
    position)."""
    for name in ("bearoff", "einstein", "senet", "ur"):
        assert main(["play", name, "--show-rules"]) == 0
        text = capsys.readouterr().out
        lines = [line.strip() for line in text.splitlines()]
        assert "The end" in lines or "Winning" in lines, name
        assert not any(line.startswith("#") for line in lines) and "**" not in text
        assert "--pieces" not in text and "How tabula writes" not in text
    assert main(["play", "senet", "--show-rules"]) == 0
    assert "• 26, the House of Beauty" in capsys.readouterr().out
    assert main(["play", "bearoff", "--show-rules"]) == 0
    assert "• passes: they give up" in capsys.readouterr().out


def test_missing_network_and_wrong_side_are_refused(monkeypatch, capsys):
    code, out = play(monkeypatch, capsys, ["ur", "--pieces", "2", "--level", "journeyman"], "")
    assert code == 2 and "needs a network" in out.err and "--pieces 7" in out.err


def test_a_table_without_a_network_offers_its_perfect_play(monkeypatch, capsys, tables):
    """tabula play ur --table u2.h5 (no network plays 2 pieces): the way that works, the
    table's perfect play, is offered, not --pieces 7, which the table refuses (issue
    65); and it plays."""
    table = str(tables[("ur", 2)].path)
    code, out = play(monkeypatch, capsys, ["ur", "--table", table], "")
    assert code == 2 and "--level master (perfect play from the table)" in out.err
    assert "--pieces" not in out.err
    code, out = play(monkeypatch, capsys, ["ur", "--table", table, "--level", "master",
                                           "--seed", "1"], "r\n1\n" * 200)
    banner = out.out.splitlines()[0]
    assert code == 0 and "(the table's perfect play)" in banner and "search" not in banner
    code, out = play(monkeypatch, capsys, ["senet", "--side", "light", "--level",
                                           "apprentice"], "")
    assert code == 2 and "white or black" in out.err


def test_a_reader_that_goes_away_ends_the_game_quietly():
    """tabula play ur | head: no 'Broken pipe' message, exit status 0."""
    import subprocess
    import sys
    done = subprocess.run(f"set -o pipefail; {sys.executable} -m tabula play ur --level "
                          "apprentice --seed 1 < /dev/null | head -1", shell=True,
                          capture_output=True, text=True, executable="/bin/bash")
    assert done.stdout.startswith("ur with 7 pieces") and done.stderr == ""
    assert done.returncode == 0


def test_a_masters_game_in_the_terminal(monkeypatch, capsys):
    """Masters' path is drawn with its squares; a whole game plays, captures included."""
    code, out = play(monkeypatch, capsys, ["ur", "--rules", "masters", "--pieces", "2",
                                           "--level", "apprentice", "--seed", "3"],
                     "1\n" * 600)
    assert code == 0
    text = out.out
    assert text.startswith("ur (masters rules) with 2 pieces a side")
    assert "Masters' path (16 squares" in text and "16 15" in text
    assert "you (light) win" in text or "the computer (dark) wins" in text


def test_the_help_gives_the_pieces_play_uses_and_a_level_a_game_cannot_honour_is_refused(
        monkeypatch, capsys):
    """--pieces' help for tabula play comes from the shipped networks (Senet: 4, the
    bear-off: 10), not the rule sets' defaults; in a game played with the cube the
    Master is perfect play from a table (its search knows no cube), so master without
    --table is one line, not ignored; the Apprentice (the heuristic, the cube taken as
    dead) plays."""
    from tabula.commands.common import add_game_arguments
    from tabula.session import playable_pieces
    import argparse
    parser = argparse.ArgumentParser()
    add_game_arguments(parser, playable_pieces)
    text = " ".join(parser.format_help().split())
    assert f"senet 1..5, default {playable_pieces('senet')}" in text
    assert f"bearoff 1..15, default {playable_pieces('bearoff')}" in text
    assert playable_pieces("senet") == 4 and playable_pieces("bearoff") == 10
    code, out = play(monkeypatch, capsys, ["bearoff", "--level", "master"], "q\n")
    assert code == 2 and "level master is perfect play from a table" in out.err
    code, out = play(monkeypatch, capsys, ["bearoff", "--level", "apprentice"], "q\n")
    assert code == 0 and "at level apprentice" in out.out


def test_the_computer_s_searches_share_one_reply_s_time(tables):
    """A Master that searches against the clock (mcts:SIMS/Tms) is given its own limit
    for a reply's first search and what is left of REPLY_MS for the next ones (Ur: a
    rosette throws again), never under LEAST_MS; the time is passed to each search, the
    player's own limit never changed."""
    import time
    import numpy as np
    from tabula.eval.players import Player
    from tabula.games import get_game
    from tabula.session import LEAST_MS, REPLY_MS, start_session
    game = get_game("ur", 3)
    session = start_session(game, "apprentice", "light", seed=2, table=tables[("ur", 3)])
    limits = []

    def slow_first(codes, counts, nxt, infos, rand, seconds=None):
        limits.append(seconds)
        time.sleep(0.015)   # a search that takes 15 ms
        return np.zeros(len(counts), dtype=np.int64)
    player = session.computer = Player("mcts:5000/20ms", game, slow_first, seconds=0.02)
    replies = []
    while not session.over and len(replies) < 60:
        limits.clear()
        if session.seat in session.humans:
            session.roll()
            if session.throw is not None:
                session.play(0)
        session.computer_turns()
        replies.append(list(limits))
        assert player.seconds == 0.02
    shared = [r for r in replies if len(r) >= 2]
    assert shared, "no reply with two searches of the computer's"
    for reply in replies:
        if reply:
            assert reply[0] == 0.02 and all(LEAST_MS / 1000 <= s <= 0.02 for s in reply)
    for reply in shared:
        assert reply[1] <= (REPLY_MS - 15) / 1000 + 1e-3


def test_the_variant_table_and_network_are_decided_once_for_terminal_and_web(
        tables, monkeypatch, capsys):
    """tabula/kit.py: a network named without --pieces decides the variant (EinStein's
    3-cube network, where the game's default is 6 cubes); one named for another variant
    than asked is one line; the web app passes over a server's network that does not fit
    and plays the variant asked for with its shipped one."""
    from tabula.kit import Networks, kit_for
    code, out = play(monkeypatch, capsys, ["einstein", "--model", "models/einstein3.onnx",
                                           "--hotseat", "--seed", "1"], "q\n")
    assert code == 0 and "einstein with 3 cubes a side" in out.out
    code, out = play(monkeypatch, capsys, ["einstein", "--cubes", "6", "--model",
                                           "models/einstein3.onnx"], "q\n")
    assert code == 2 and "not of pieces=6" in out.err
    server = Networks({"einstein": "models/einstein3.onnx"})
    kit = kit_for("einstein", 6, None, tables[("ur", 3)], server)
    assert kit.model is not None and kit.model.game.pieces == 6   # the shipped one
    assert kit.table is None   # a table of another game is no table of this one
    kit = kit_for("einstein", 3, None, None, server)
    assert str(kit.model_path) == "models/einstein3.onnx"
    assert kit_for("ur", None, None, tables[("ur", 3)], server).table is None   # ur 7
    assert kit_for("ur", 3, None, tables[("ur", 3)], server).table is tables[("ur", 3)]


def test_a_review_counts_its_decisions_in_words():
    """'100% of 1 decision', not '1 decisions'; a side with no choice to make is said so."""
    from tabula.play import review_text
    review = {"side": "light", "source": "exact, from the table", "digits": 2,
              "unit": "points of winning chance", "accuracy": 1.0, "decisions": 1,
              "mean_loss_points": 0.0, "points_given_away": 0.0, "thresholds_text": "",
              "worst": [], "chances": [0.5, 1.0]}
    assert "100% of 1 decision with a choice" in review_text(review)
    assert "of 2 decisions with" in review_text(review | {"decisions": 2})
    assert review_text(review | {"decisions": 0}).strip() == \
        "How light played: no decision of theirs had a choice."


def test_play_says_where_its_defaults_differ_from_the_other_commands(capsys):
    """tabula play defaults to the pieces a shipped network plays, the other commands to
    the rule set's own: the help says so, and which (issue 65: they disagreed unsaid)."""
    with pytest.raises(SystemExit):
        main(["play", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "the other commands default to the rule set's own (bearoff 6, senet 5)" in text
    with pytest.raises(SystemExit):
        main(["solve", "--help"])
    assert "the other commands default" not in " ".join(capsys.readouterr().out.split())


def test_the_standard_backgammon_game_in_the_terminal(monkeypatch, capsys):
    """Fifteen checkers a side against the Journeyman (the shipped network taught by
    self-play, models/backgammon-standard15.onnx), the cube in play: the plays listed in
    notation, the board with its gnubg position ID, a game to its end, and the review
    said to be the network's estimate."""
    code, out = play(monkeypatch, capsys, ["backgammon", "--rules", "standard", "--seed", "3"],
                     "r\n1\nt\n" * 1500)
    assert code == 0
    text = out.out
    assert text.startswith("backgammon (standard rules) with 15 checkers a side")
    assert "against the computer at level journeyman (the network)" in text
    assert "How white played (the network's estimate)" in text
    assert "gnubg position ID 4HPwATDgc/ABMA" in text and "167 pips" in text
    assert re.search(r"  1: 24/20\(2\)", text)          # 2-2 from the start, the first play
    assert re.search(r"the computer \(black\) wins \d+ points?|you \(white\) win", text)
