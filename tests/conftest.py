"""Fixtures shared by the test modules: small solved tables."""
import pytest

from tabula import games
from tabula.games import get_game, ur
from tests.toy import capture, race

from tabula.solver.layered import solve
from tabula.solver.table import Table

games.register(race)     # games known only to the tests: they plug in like any other
games.register(capture)
# a rule set known only to the tests: two coins, no safe rosette, a capture throws again
ur.register_rules(ur.UrRules("tiny", pieces=2, dice=2, safe_rosettes=False,
                             again_on_capture=True))

# (game, pieces, max_total): Senet is checked on its layers with at most 3 pieces in
# total here; `python -m tests.solver_check senet` runs the 5-in-total set (3,917,900
# positions; its reference solve alone takes about 13 minutes, too long for CI).
SMALL = [("ur", 1, None), ("ur", 2, None), ("ur", 3, None), ("senet", 1, None),
         ("senet", 2, 3)]


@pytest.fixture(scope="session")
def tables(tmp_path_factory):
    folder = tmp_path_factory.mktemp("tables")
    made = {}
    for name, pieces, max_total in SMALL:
        path = folder / f"{name}{pieces}.h5"
        solve(get_game(name, pieces), path, max_total=max_total, quiet=True)
        made[(name, pieces)] = Table(path)
    return made


@pytest.fixture(scope="session")
def ur3_data(tables, tmp_path_factory):
    """A small labelled set of Ur with 3 pieces (datagen), shared by later stages."""
    from tabula.datagen.generate import generate
    path = tmp_path_factory.mktemp("data") / "ur3.h5"
    generate(tables[("ur", 3)], path, games=400, explore=0.3, uniform=40000, seed=5,
             val_frac=0.1, test_frac=0.1, quiet=True)
    return path


@pytest.fixture(scope="session")
def ur3_run(ur3_data, tmp_path_factory):
    """A small value net trained on ur3_data by `tabula train`: its run folder
    (version_0 of the folder given as trainer.default_root_dir)."""
    from tabula.cli import main
    root = tmp_path_factory.mktemp("run")
    config = root / "train.yaml"
    config.write_text(f"""
model: {{hidden: [32, 32], lr: 0.01}}
data: {{path: {ur3_data}, batch_size: 1024}}
trainer: {{default_root_dir: {root}, max_epochs: 4, enable_progress_bar: false,
          enable_model_summary: false}}
""")
    assert main(["train", "--config", str(config)]) == 0
    return root / "version_0"


@pytest.fixture(scope="session")
def hyper2(tmp_path_factory):
    """Hypergammon with two checkers a side, solved to 1e-6 (seconds): its ContactTable."""
    from tabula.solver.contact_table import ContactTable
    from tabula.solver.solution import solve_game
    out = tmp_path_factory.mktemp("hyper") / "hyper2.h5"
    solve_game(get_game("backgammon", 2), out, quiet=True, tol=1e-6)
    return ContactTable(out)
