# Two commands for a fresh machine: `make demo` (the main job) and `make test`.
# Both create .venv on first use and reuse it afterwards.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: demo play test check crosscheck solvercheck bench clean

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	# torch first, pinned: pip takes the CPU build from this disk
	$(BIN)/pip install --quiet torch==2.13.0
	$(BIN)/pip install --quiet -e '.[test]'
	touch $(STAMP)

demo: $(STAMP)
	$(BIN)/tabula pipeline configs/pipeline/quick.yaml

# the web app on this machine (http://127.0.0.1:8000); Ctrl-C stops it
play: $(STAMP)
	$(BIN)/tabula serve

# the browser tests drive Debian's Chromium; installed here when missing (as root)
BROWSER := /usr/bin/chromium /usr/bin/chromedriver

$(BROWSER):
	apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
		chromium chromium-driver >/dev/null

# GNU Backgammon's makehyper, which the hypergammon tests compare against (as root)
MAKEHYPER := /usr/games/makehyper

$(MAKEHYPER):
	apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
		gnubg >/dev/null

# two test processes, one a core (most tests use one); each takes whole files
test: $(STAMP) $(BROWSER) $(MAKEHYPER)
	$(BIN)/ruff check .
	$(BIN)/python -m pytest -q -n 2 --dist loadfile

# the fast tier for the working loop: all but the slow, browser and gpu tests
check: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/python -m pytest -q -n 2 --dist loadfile -m "not slow and not browser and not gpu"

crosscheck: $(STAMP)
	$(BIN)/python -m tests.crosscheck ur 1000000
	$(BIN)/python -m tests.crosscheck senet 1000000
	$(BIN)/python -m tests.crosscheck ur 100000 --royalur

solvercheck: $(STAMP)
	$(BIN)/python -m tests.solver_check senet

bench: $(STAMP)
	$(BIN)/python benchmarks/bench_moves.py
	$(BIN)/python benchmarks/bench_solve.py ur --pieces 7 --out tables/ur7.h5
	$(BIN)/python benchmarks/bench_lookup.py tables/ur7.h5
	$(BIN)/python benchmarks/bench_datagen.py tables/ur7.h5
	$(BIN)/python benchmarks/bench_training.py data/ur7.h5
	$(BIN)/python benchmarks/bench_eval.py tables/ur7.h5 models/ur7.onnx

clean:
	rm -rf $(VENV) build *.egg-info
