#!/usr/bin/env bash
# The chain's speeds in two checkouts, run alternately on the same machine (a refactor
# must keep them): solve Ur 5 (the solve's own wall seconds), datagen (wall), train
# (samples a second over one epoch) and eval regret (the engine's seconds), ROUNDS
# rounds after one that warms both trees' numba caches. Prints a table (medians);
# writes OUT/side_by_side.json.
#
#   benchmarks/side_by_side.sh OLD_CHECKOUT NEW_CHECKOUT OUT [ROUNDS]
#
# Both checkouts run with this checkout's .venv (PYTHONPATH picks each one's code).
set -euo pipefail
if [ $# -lt 3 ]; then echo "usage: $0 OLD_CHECKOUT NEW_CHECKOUT OUT [ROUNDS]" >&2; exit 2; fi
OLD=$(realpath "$1"); NEW=$(realpath "$2"); OUT=$(realpath -m "$3"); ROUNDS=${4:-3}
PY="$(cd "$(dirname "$0")/.." && pwd)/.venv/bin/python"
mkdir -p "$OUT"; : > "$OUT/runs.jsonl"

now() { date +%s.%N; }

run() {   # checkout label round
  local tree=$1 label=$2 round=$3 work="$OUT/$2"
  mkdir -p "$work"; cd "$tree"; export PYTHONPATH="$tree"
  "$PY" -m tabula solve ur --pieces 5 --out "$work/ur5.h5" --force --quiet --json > "$work/solve.json"
  local s; s=$(now)
  "$PY" -m tabula datagen ur --table "$work/ur5.h5" --out "$work/data.h5" --games 200000 \
    --uniform 2000000 --seed 1 --force --quiet > /dev/null
  local datagen; datagen=$(echo "$(now) - $s" | bc)
  # a checkout from before the game came from the data names it in the model settings
  local model=(); grep -q "LINKED" "$tree/training/cli.py" || model=(--model.game ur --model.pieces 5)
  rm -rf "$work/run"
  "$PY" -m tabula train "${model[@]}" --data.path "$work/data.h5" --model.hidden '[128, 128]' \
    --data.batch_size 2048 --trainer.max_epochs 1 --trainer.default_root_dir "$work/run" \
    --trainer.enable_progress_bar false --seed_everything 1 > /dev/null 2>&1
  "$PY" -m tabula eval regret ur --table "$work/ur5.h5" --player expectimax:1 --games 40000 \
    --seed 1 --json --quiet > "$work/regret.json"
  "$PY" - "$work" "$label" "$round" "$datagen" >> "$OUT/runs.jsonl" <<'PY'
import json, sys
work, label, round_, datagen = sys.argv[1], sys.argv[2], int(sys.argv[3]), float(sys.argv[4])
solve = json.load(open(f"{work}/solve.json"))
train = json.load(open(f"{work}/run/version_0/test_error.json"))
regret = json.load(open(f"{work}/regret.json"))
print(json.dumps({"tree": label, "round": round_, "solve_s": solve["wall_seconds"],
                  "datagen_s": datagen, "train_samples_per_s": train["samples_per_second"],
                  "test_error_points": train["test"]["mean_points"],
                  "eval_s": regret["seconds"], "eval_loss": regret["loss_per_game_points"]}))
PY
}

for round in $(seq 0 "$ROUNDS"); do
  run "$OLD" old "$round"; run "$NEW" new "$round"
done

"$PY" - "$OUT" <<'PY'
import json, statistics, sys
out = sys.argv[1]
runs = [json.loads(line) for line in open(f"{out}/runs.jsonl") if json.loads(line)["round"] > 0]
keys = ("solve_s", "datagen_s", "train_samples_per_s", "eval_s")
median = {t: {k: statistics.median(r[k] for r in runs if r["tree"] == t) for k in keys}
          for t in ("old", "new")}
same = {k: len({r[k] for r in runs}) == 1 for k in ("test_error_points", "eval_loss")}
print(f"{'figure':<22}{'old':>14}{'new':>14}{'new/old':>10}")
for k in keys:
    print(f"{k:<22}{median['old'][k]:>14.2f}{median['new'][k]:>14.2f}"
          f"{median['new'][k] / median['old'][k]:>10.3f}")
print(f"same results in every run: {same}")
json.dump({"median": median, "same_results": same, "rounds": len(runs) // 2},
          open(f"{out}/side_by_side.json", "w"), indent=1)
PY
