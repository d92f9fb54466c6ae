#!/usr/bin/env bash
# Issue 51 on a machine with many cores and one CUDA GPU, in one call of about 9 minutes
# (run from the repository root):
#   benchmarks/gpu_distill.sh OUT [GAMES] [PAIRS]
# 1. `tabula distill` of configs/distill/einstein6-strong.yaml with GAMES self-play games
#    (default 4000: about 4.5 minutes on 16 cores, which played 129 turns a second) of
#    its teacher, a search of 400 simulations a move over the shipped network, on all
#    cores; the network trained from the shipped one's weights on the GPU, its time
#    capped at 2 minutes;
# 2. matches of the new network against the shipped one, duplicate pairs with set-ups
#    drawn at random and sides swapped: greedy (PAIRS pairs, default 1000) and a search
#    of 200 simulations a move over each (PAIRS / 2 pairs).
# Everything measured goes to OUT (the network, its manifest, the distill record and
# log, the matches' JSON). To try it without a GPU: ACCELERATOR=cpu, a few GAMES.
set -euo pipefail
usage() { echo "benchmarks/gpu_distill.sh: $1" >&2; exit 2; }
[ $# -ge 1 ] || usage "usage: benchmarks/gpu_distill.sh OUT [GAMES] [PAIRS]"
out=$1
games=${2:-4000}
pairs=${3:-1000}
accelerator=${ACCELERATOR:-gpu}
[[ $games =~ ^[0-9]+$ && $pairs =~ ^[0-9]+$ ]] || usage "GAMES and PAIRS are whole numbers"
work=${WORK:-/tmp/tabula-gpu-distill}
mkdir -p "$out" "$work"
python3 - "$work/recipe.yaml" "$work/distill" "$games" "$accelerator" <<'PY'
import sys
import yaml
target, workdir, games, accelerator = sys.argv[1:]
recipe = yaml.safe_load(open("configs/distill/einstein6-strong.yaml"))
recipe["workdir"] = workdir
recipe["distill"]["games"] = int(games)
recipe["train"]["threads"] = 0   # all cores
recipe["train"]["trainer"].update(accelerator=accelerator, max_time="00:00:02:00")
yaml.safe_dump(recipe, open(target, "w"), sort_keys=False)
PY
started=$(date +%s)
python3 -m tabula distill "$work/recipe.yaml" 2>&1 | tee "$out/distill.log"
echo "distill: $(( $(date +%s) - started )) s" | tee -a "$out/distill.log"
new="$work/distill/gen_0/model.onnx"
cp "$new" "$out/einstein6-strong.onnx"
cp "$work/distill/gen_0/model.json" "$out/einstein6-strong.json"
cp "$work/distill/distill.json" "$out/distill.json"
old=models/einstein6.onnx
python3 -m tabula eval match einstein --pieces 6 --a "net:$new" --b "net:$old" \
    --pairs "$pairs" --seed 5 --json --quiet > "$out/match_greedy.json"
python3 -m tabula eval match einstein --pieces 6 --a "mcts:200:$new" --b "mcts:200:$old" \
    --pairs $(( pairs / 2 )) --seed 5 --json --quiet > "$out/match_mcts200.json"
echo "all: $(( $(date +%s) - started )) s" | tee -a "$out/distill.log"
