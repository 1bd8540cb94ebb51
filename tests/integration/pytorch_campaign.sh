#!/usr/bin/env bash
# examples/pytorch_campaign (issue 27 §2): samples -> Python simulations -> collect -> the
# user's own DDP trainer on 2 ranks, reading the HDF5 file through merlin_dataset. Locally: the
# trainer stops early at the target error and the model it kept reaches it. On Redis: the
# worker and its whole task (mpirun, both ranks) are killed with SIGKILL mid-training, the task
# is redelivered to a second worker once its lease runs out, and the trainer resumes from its
# last checkpoint and ends exactly as the uninterrupted local run did, epoch for epoch.
source "$(dirname "$0")/lib.sh"
set +e  # exit codes are what this test checks
need_python torch h5py numpy
command -v mpirun >/dev/null || { echo "SKIP: mpirun not found (apt-get install openmpi-bin)"; exit 77; }
ulimit -f 200000  # KiB: a few MB of workspace
"$MERLIN" example pytorch_campaign >/dev/null 2>&1
spec=$WORK/pytorch_campaign/pytorch_campaign.yaml
json() { "$PY" -c "import json, sys; d = json.load(open(sys.argv[1])); print($2)" "$1"; }

# --- locally --------------------------------------------------------------------------------
mkdir local
start=$(date +%s)
(cd local && "$MERLIN" run --local -j 2 --no-progress "$spec" >run.out 2>run.err)
rc=$?
expect_eq "local: run exits 0 (in $(( $(date +%s) - start )) s)" 0 "$rc"
[ "$rc" = 0 ] || tail -20 local/run.err
ws=$(ls -d "$WORK"/local/studies/pytorch_campaign_* | head -1)
report=$ws/train/model/report.json
echo "local: $(json "$report" "{k: v for k, v in d.items() if k != 'val_rmse_per_epoch'}")"
check "local: the train step ran the shim under mpirun -np 2" \
  grep -q "^mpirun -np 2 $(dirname "$MERLIN")/merlin-rank-env /usr/bin/python3 " "$ws/train/train.sh"
expect_eq "local: 2 ranks, the target reached, stopped early at the best epoch" "2 True True True" \
  "$(json "$report" "d['ranks'], d['reached_target'], d['epochs_run'] < d['max_epochs'], d['best_epoch'] == d['epochs_run']")"
# The model kept is the one that reached the target: evaluated afresh on the validation split.
out=$(cd "$ws/train" && PYTHONPATH=$(dirname "$MERLIN")/python "$PY" - model/model.pt "$ws/collect/dataset.h5" <<'PYEOF'
import json, sys, torch
from torch import nn
from merlin_dataset import CollectedArrays
m = torch.load(sys.argv[1])
val = CollectedArrays(sys.argv[2], inputs=m["inputs"], targets=[m["target"]], split="val",
                      val_fraction=0.2, seed=1, rank=0, world_size=1)
x = torch.from_numpy(val.x)
x[:, 2] = x[:, 2].log()  # the spec's --log-inputs DRAG
w = [x.shape[1]] + [int(h) for h in m["hidden"].split(",")]
layers = []
for a, b in zip(w, w[1:]):
    layers += [nn.Linear(a, b), nn.SiLU()]
net = nn.Sequential(*layers, nn.Linear(w[-1], 1))
net.load_state_dict(m["model"])
with torch.no_grad():
    pred = net((x - m["x_mean"]) / m["x_std"]) * m["y_std"] + m["y_mean"]
rmse = ((pred - torch.from_numpy(val.y)) ** 2).mean().sqrt().item()
r = json.load(open("model/report.json"))
print(m["epoch"] == r["best_epoch"], abs(rmse - r["best_val_rmse"]) < 1e-3 * r["best_val_rmse"],
      rmse <= r["target_error"], f"{rmse:.4f}")
PYEOF
)
expect_eq "local: model.pt is the best epoch's, its RMSE as reported and within the target ($out)" \
  "True True True" "${out% *}"
local_history=$(json "$report" "d['best_epoch'], d['best_val_rmse'], d['val_rmse_per_epoch']")

# --- Redis: the worker and the trainer killed with SIGKILL, the task redelivered ----------------
start_redis
mkdir dist
(cd dist && "$MERLIN" run "$spec" >run.out 2>run.err)
expect_eq "workers: the study is queued" 0 $?
(cd dist && exec "$MERLIN" run-workers "$spec" --lease 2 >victim.out 2>victim.err) &
victim=$!
CLEANUP+=("kill -9 $victim")
ws=$(ls -d "$WORK"/dist/studies/pytorch_campaign_* | head -1)
check "workers: the trainer is past epoch 20" wait_until 240 grep -qs "^epoch 2[0-9] " "$ws/train/train.log"
# The node dies: the worker stopped first, so that nothing of it reacts, then it and every
# process below it (its guardian, bash, mpirun, both ranks) killed with SIGKILL.
descendants() {
  local p c
  for c in $(ps -eo pid=,ppid= | awk -v p="$1" '$2 == p { print $1 }'); do echo "$c"; descendants "$c"; done
}
kill -STOP "$victim"
tree=$(descendants "$victim")
ranks=$(ps -o args= -p "$(echo $tree | tr ' ' ,)" | grep -c "^/usr/bin/python3 .*train_ddp.py")
kill -9 "$victim" $tree
{ wait "$victim"; } 2>/dev/null
expect_eq "workers: both ranks were among the processes killed" 2 "$ranks"
killed_at=$(grep -c "^epoch " "$ws/train/train.log")
check "workers: the kill came before the end ($killed_at epochs logged)" test ! -e "$ws/train/model/report.json"
start=$(date +%s)
(cd dist && timeout 300 "$MERLIN" run-workers "$spec" --lease 2 --exit-when-done >rescuer.out 2>rescuer.err)
expect_eq "workers: the second worker finishes the study (in $(( $(date +%s) - start )) s)" 0 $?
expect_eq "workers: every task done" "simulate,1,256,256,0
collect,1,1,1,0
train,1,1,1,0" "$("$MERLIN" status "$ws" --format csv | grep -E '^(simulate|collect|train),' | cut -d, -f1-5)"
report=$ws/train/model/report.json
resumed=$(json "$report" "d['resumed_from_epochs']")
check "workers: the redelivered trainer resumed from a checkpoint ($resumed, $killed_at epochs logged at the kill)" \
  "$PY" -c "import sys; r = $resumed; sys.exit(not (len(r) == 1 and 20 <= r[0] <= $killed_at + 1))"
check "workers: the log says so" grep -q "^resumed from .*last.pt at epoch" "$ws/train/train.log"
expect_eq "workers: best epoch, best RMSE and every epoch's RMSE as in the uninterrupted run" \
  "$local_history" "$(json "$report" "d['best_epoch'], d['best_val_rmse'], d['val_rmse_per_epoch']")"
finish
