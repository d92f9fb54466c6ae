"""docs/API.md runs as written (doctest), from a folder with tables/ur3.h5,
tables/bearoff3.h5 and models/."""
import doctest
import shutil
from pathlib import Path

import pytest

from tabula.games import get_game
from tabula.solver.race_table import solve_race

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.slow
def test_the_api_page_runs_as_written(tables, tmp_path, monkeypatch):
    (tmp_path / "tables").mkdir()
    shutil.copy(tables[("ur", 3)].path, tmp_path / "tables" / "ur3.h5")
    solve_race(get_game("bearoff", 3), tmp_path / "tables" / "bearoff3.h5", quiet=True)
    (tmp_path / "models").symlink_to(ROOT / "models")
    monkeypatch.chdir(tmp_path)
    result = doctest.testfile(str(ROOT / "docs" / "API.md"), module_relative=False)
    assert result.failed == 0 and result.attempted >= 15
