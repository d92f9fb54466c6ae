"""The toy race (tests/toy/race.py), registered only in the tests, through the whole
command line: a game plugs in without edits outside games/ and tests/."""
import json

import numpy as np
import pytest

from tabula.games import get_game
from tabula.solver.table import Table
from tabula.cli import main


@pytest.fixture(scope="module")
def toy_table(tmp_path_factory):
    path = tmp_path_factory.mktemp("toy") / "toy3.h5"
    assert main(["solve", "toyrace", "--pieces", "3", "--out", str(path), "--quiet"]) == 0
    return Table(path)


def test_a_pure_race_is_exact_after_one_sweep(toy_table):
    """Every move advances a piece (the game declares itself acyclic), so sweeping in
    order of progress meets every successor solved: one sweep, and the certifying
    pass after it changes nothing (but rounding, where a
    thrown 0 hands the board back and forth); the values equal the reference solver's."""
    from tabula.solver.reference import reference_solve
    exact = reference_solve(toy_table.game)
    for layer in toy_table.layers:
        stats = toy_table.layer_attrs[layer]
        assert stats["sweeps"] == 1 and stats["last_change"] <= 1e-15, layer
        assert np.abs(toy_table.layer(*layer) - exact[layer]).max() <= 1e-7, layer


def test_a_closed_form(toy_table):
    """One piece each on square 6: the mover bears off with any throw but 0 (3/4);
    after a 0 the opponent is in the same spot: V = 3/4 + (1 - V)/4, so V = 4/5."""
    game = toy_table.game
    code = game.position_from_json({"me": [6], "opp": [6]})
    assert toy_table.value(code) == pytest.approx(0.8, abs=1e-7)


def test_the_commands_take_the_toy_game(toy_table, capsys):
    assert main(["moves", "toyrace", "--pieces", "3", "--position", "start", "--throw", "2",
                 "--table", str(toy_table.path), "--json"]) == 0
    moves = json.loads(capsys.readouterr().out)["moves"]
    assert [(m["from"], m["to"]) for m in moves] == [(2, 4), (3, 5)]
    assert main(["eval", "regret", "toyrace", "--pieces", "3", "--table",
                 str(toy_table.path), "--player", "heuristic", "--games", "200",
                 "--json", "--quiet"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["games"] == 200 and result["loss_per_game_points"] >= 0
    assert main(["play", "toyrace", "--show-rules"]) == 0
    assert capsys.readouterr().out.strip().startswith("Toy race")   # rendered, no #
    assert get_game("toyrace").presentation.sides == ("red", "blue")


def test_a_race_without_a_race_object_goes_through_datagen(toy_table, tmp_path):
    """The toy race's sides never meet but it declares no Race (so it is solved in
    layers, like any game): self-play is the layered solution's own, from the game's
    start, where it had asked the game for a Race and crashed."""
    import h5py
    out = tmp_path / "toy.h5"
    assert main(["datagen", "toyrace", "--table", str(toy_table.path), "--out", str(out),
                 "--games", "200", "--uniform", "500", "--seed", "3", "--quiet"]) == 0
    with h5py.File(out) as f:
        sources = np.concatenate([f[split]["source"][:] for split in ("train", "val", "test")])
    assert (sources == 0).sum() > 200   # every game's positions, met in self-play


def test_the_commands_take_the_flag_the_game_declares(tmp_path, capsys):
    """The toy race calls its pieces runners (FLAGS): every command offers --runners,
    with no line outside games/ and tests/ naming it."""
    out = tmp_path / "toy2.h5"
    assert main(["solve", "toyrace", "--runners", "2", "--out", str(out), "--quiet"]) == 0
    assert Table(out).game.pieces == 2
    with pytest.raises(SystemExit):
        main(["value", "--help"])
    assert "--runners" in capsys.readouterr().out
