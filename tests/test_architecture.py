"""The architecture's two rules, checked on the source: the one-way package order
(import-linter, contract in pyproject.toml) and no game's name outside games/."""
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tabula.games import GAMES

ROOT = Path(__file__).resolve().parent.parent
GENERIC = ("infra", "solver", "runtime", "datagen", "training", "export", "eval", "tabula")


def test_packages_import_only_packages_below_them():
    lint = Path(sys.executable).with_name("lint-imports")
    done = subprocess.run([str(lint), "--no-cache"], cwd=ROOT, capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "2 kept, 0 broken" in done.stdout   # the package order, and the two arms


def lines_matching(pattern, packages=GENERIC, homes=()) -> list[str]:
    """'path:number: line' of every line of the packages' code that `pattern` finds,
    but in the files `homes` (paths from the root)."""
    found = []
    for package in packages:
        for path in sorted((ROOT / package).rglob("*.py")):
            where = str(path.relative_to(ROOT))
            if not path.resolve().is_relative_to(ROOT / package) or where in homes:
                continue   # tabula/games etc. are links to the packages below
            for number, line in enumerate(path.read_text().splitlines(), 1):
                if pattern.search(line):
                    found.append(f"{where}:{number}: {line.strip()}")
    return found


def test_no_code_outside_games_tests_a_games_name():
    """A game name as a string literal in generic code means a dispatch on it (or a
    default that picks one): that belongs behind the Game object."""
    names = "|".join(re.escape(name) for name in GAMES)
    found = lines_matching(re.compile(rf"""(['"])({names})\1"""))
    assert not found, "game names outside games/:\n" + "\n".join(found)


KIND_TEST = re.compile(r"\.race is (not )?None|\bRaceTable\b|\bis_race_table\b")
KIND_HOMES = {"solver/solution.py", "solver/race_table.py"}   # the registry, the kind itself


def test_no_code_outside_games_and_the_solver_registry_tests_a_solution_kind():
    """Which solver a game takes and which class opens a file are decided once, in
    solver/solution.py; everything else reads a game's declared capabilities and the
    solution interface, never whether a game is a race or a table a RaceTable."""
    found = lines_matching(KIND_TEST, homes=KIND_HOMES)
    assert not found, "solution kinds tested outside solver/solution.py:\n" + "\n".join(found)
    assert KIND_TEST.search("if game.race is not None:") and KIND_TEST.search(
        "isinstance(table, RaceTable)")


INSIDES = re.compile(r"\.flat\b|\.offsets\b|\.arrays\[|\.race\b|\b(Race)?Table\(")
ABOVE_THE_SOLVER = ("runtime", "datagen", "training", "export", "eval", "tabula")


def test_nothing_above_the_solver_reads_a_solutions_insides():
    """A solution answers for itself (solver/solution.py): its perfect policy, its
    decisions' worths and its self-play come from the solution object, so nothing above
    the solver reads its arrays or a game's Race, or opens a table by its class."""
    found = lines_matching(INSIDES, ABOVE_THE_SOLVER)
    assert not found, "a solution's insides read above the solver:\n" + "\n".join(found)
    for leak in ("table.flat, table.offsets", 'table.arrays["win"]', "r = g.race",
                 "Table(self.table)", "RaceTable(path)"):
        assert INSIDES.search(leak), leak
    assert not INSIDES.search("open_solution(path)") and not INSIDES.search("the race")


def test_no_game_s_flag_is_written_outside_games():
    """Other names of the pieces (--checkers, --cubes) and rule sets (--board) are
    declared by the games (FLAGS) and the commands build their flags from them."""
    from tabula.games import game_flags
    names = "|".join(re.escape(name) for name in game_flags())
    written = re.compile(rf"""['"]--({names})['"]""")
    found = lines_matching(written)
    assert not found, "a game's flag written outside games/:\n" + "\n".join(found)
    assert written.search('parser.add_argument("--pieces", "--checkers", "--cubes")')


def test_the_name_check_would_catch_a_dispatch(tmp_path):
    names = "|".join(re.escape(name) for name in GAMES)
    literal = re.compile(rf"""(['"])({names})\1""")
    assert literal.search('if game.name == "ur":') and literal.search("HEURISTICS['senet']")
    assert not literal.search("the Royal Game of Ur (ur 1..7)")


@pytest.mark.slow
def test_the_distribution_installs_one_namespace(tmp_path):
    """The wheel holds tabula/ only (tabula.games, tabula.solver, ...), no generic
    top-level names, and the packages below tabula with their files, the rules for
    people and the shipped models."""
    import shutil
    import zipfile
    source = tmp_path / "source"   # a copy: the build leaves build/ beside what it builds
    shutil.copytree(ROOT, source, symlinks=True, ignore=shutil.ignore_patterns(
        ".*", "runs", "tables", "data", "build", "*.egg-info", "__pycache__"))
    done = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps",
                           "--no-build-isolation", "-w", str(tmp_path), str(source)],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr
    wheel = next(tmp_path.glob("*.whl"))
    names = zipfile.ZipFile(wheel).namelist()
    top = {name.split("/")[0] for name in names if not name.split("/")[0].endswith(
        (".dist-info", ".data"))}
    assert top == {"tabula"}, top
    for module in ("tabula/games/ur.py", "tabula/solver/two_sided.py", "tabula/infra/errors.py",
                   "tabula/eval/cube_regret.py", "tabula/runtime/model_file.py",
                   "tabula/games/state.py", "tabula/static/index.html",
                   "tabula/rules/ur.md", "tabula/rules/bearoff.md", "tabula/models/ur7.onnx",
                   "tabula/models/bearoff10.json"):
        assert module in names, module


def test_the_command_line_starts_without_torch():
    """`tabula` builds its parser without PyTorch or Lightning (seconds at every start of
    every command: a command imports them when it runs, if it needs them)."""
    done = subprocess.run([sys.executable, "-c", "import sys, tabula.cli; tabula.cli."
                           "build_parser(); print(sorted({'torch', 'lightning'} & "
                           "set(sys.modules)))"], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"
