# Two commands for a fresh machine: `make demo` (the main job) and `make test`.
# Both create .venv on first use and reuse it afterwards.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: demo test crosscheck bench clean

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	# torch first, pinned: pip takes the CPU build from this disk
	$(BIN)/pip install --quiet torch==2.13.0
	$(BIN)/pip install --quiet -e '.[test]'
	touch $(STAMP)

demo: $(STAMP)
	$(BIN)/tabula moves ur --position start --throw 2
	$(BIN)/tabula moves senet --position start --throw 5

test: $(STAMP)
	$(BIN)/python -m pytest -q

crosscheck: $(STAMP)
	$(BIN)/python -m tests.crosscheck ur 1000000
	$(BIN)/python -m tests.crosscheck senet 1000000
	$(BIN)/python -m tests.crosscheck ur 100000 --royalur

bench: $(STAMP)
	$(BIN)/python benchmarks/bench_moves.py

clean:
	rm -rf $(VENV) build *.egg-info
