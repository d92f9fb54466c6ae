"""tabula play driven through its input stream: whole games, bad input refused."""
import io

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
    assert "# The Royal Game of Ur" in out.out and "House of" not in out.out
    assert "'x' is not a move number" in out.out and "'0' is not a move number" in out.out
    assert "you win with" in out.out
    assert out.out.rstrip().endswith("wins.")
    assert "[*]" in out.out and "light throws" in out.out


def test_hotseat_senet_to_the_end_and_master_with_table(tables, monkeypatch, capsys):
    code, out = play(monkeypatch, capsys, ["senet", "--pieces", "1", "--hotseat", "--seed", "2"],
                     "2\n" * 5 + "1\n" * 400)
    assert code == 0 and out.out.rstrip().endswith("wins.")
    assert "[ W]" in out.out and "<-" in out.out
    table = str(tables[("ur", 2)].path)
    code, out = play(monkeypatch, capsys, ["ur", "--pieces", "2", "--level", "master",
                                           "--table", table, "--side", "dark", "--seed", "1"],
                     "q\n")
    assert code == 0 and "bye" in out.out


def test_rules_of_every_game(capsys):
    for name in ("ur", "senet"):
        assert main(["play", name, "--rules"]) == 0
        text = capsys.readouterr().out
        assert text.startswith("# ") and "## The end" in text


def test_missing_network_and_wrong_side_are_refused(monkeypatch, capsys):
    code, out = play(monkeypatch, capsys, ["ur", "--pieces", "2", "--level", "journeyman"], "")
    assert code == 2 and "needs a network" in out.err
    code, out = play(monkeypatch, capsys, ["senet", "--side", "light", "--level",
                                           "apprentice"], "")
    assert code == 2 and "white or black" in out.err
