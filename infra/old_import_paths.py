"""The repository's old import paths kept working: `games`, `solver`, `datagen`,
`training`, `export`, `eval` and `infra` as top-level packages are the very modules
tabula.games, tabula.solver, ..., never second copies (which would hold a second
registry of games, second classes, ...). The installed distribution has only the
tabula.* names; in the repository the top-level folders are still importable, and
each one's __init__ hands itself over to its tabula.* module here."""
import importlib
import importlib.abc
import importlib.util
import sys

PACKAGES = ("games", "solver", "datagen", "training", "export", "eval", "infra")


class _Alias(importlib.abc.Loader):
    """Loads an old name as the already imported (or now imported) tabula.* module."""

    def __init__(self, canonical: str):
        self.canonical = canonical

    def create_module(self, spec):
        self.module = importlib.import_module(self.canonical)
        self.spec = self.module.__spec__
        return self.module

    def exec_module(self, module):
        module.__spec__ = self.spec   # the import system set the old name's spec on it


class _OldPaths(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in PACKAGES:
            return importlib.util.spec_from_loader(name, _Alias("tabula." + name))
        return None


def hand_over(name: str):
    """Called by an old top-level package as it is imported under its old name: from
    now on that name, and every name below it, is the tabula.* module."""
    if not any(isinstance(finder, _OldPaths) for finder in sys.meta_path):
        sys.meta_path.insert(0, _OldPaths())
    sys.modules[name] = importlib.import_module("tabula." + name)
