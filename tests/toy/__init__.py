"""A toy race game registered only in the tests (tests/conftest.py): the proof that a
game plugs in without touching any package outside games/ and tests/."""
