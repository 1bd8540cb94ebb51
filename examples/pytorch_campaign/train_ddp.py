"""A user's PyTorch DDP trainer, as written for torchrun: nothing in it is merlin's but the
reader of the collected HDF5 file (merlin_dataset, shipped with merlin).

Each rank trains on its shard of the training rows (DistributedDataParallel averages the
gradients), every epoch ends with the validation RMSE over all ranks' validation shards, and
rank 0 writes a checkpoint (atomically: a temporary file renamed over the last one). Started
again with the same --checkpoint directory, say after its task was killed and redelivered, it
resumes from the last checkpoint: weights, optimizer, learning-rate schedule and the epoch, so
the run ends as an uninterrupted one would. It stops early once the validation RMSE reaches
--target-error and keeps the best epoch's model in --out (model.pt, report.json).
"""
import argparse
import json
import os
import time

STARTED = time.monotonic()  # time-to-accuracy counts from the start of the process

import torch
import torch.distributed as dist
from torch import nn
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader

from merlin_dataset import CollectedDataset

p = argparse.ArgumentParser(description=__doc__)
p.add_argument("--data", required=True, help="a merlin collect HDF5 file")
p.add_argument("--inputs", required=True, help="input columns, comma-separated")
p.add_argument("--target", required=True, help="the field to predict, e.g. result/range")
p.add_argument("--log-inputs", default="", help="input columns to take the log of, comma-separated")
p.add_argument("--hidden", default="64,64")
p.add_argument("--lr", type=float, default=1e-2)
p.add_argument("--lr-decay", type=float, default=0.995, help="learning rate factor per epoch")
p.add_argument("--batch", type=int, default=16, help="rows per step per rank")
p.add_argument("--epochs", type=int, default=200)
p.add_argument("--val-fraction", type=float, default=0.2)
p.add_argument("--seed", type=int, default=1)
p.add_argument("--target-error", type=float, default=0.0, help="stop once val RMSE <= this")
p.add_argument("--checkpoint", default="", help="directory of the resumable checkpoint")
p.add_argument("--out", default="model")
args = p.parse_args()

dist.init_process_group("gloo")  # env://: RANK, WORLD_SIZE, MASTER_ADDR, MASTER_PORT
rank, world = dist.get_rank(), dist.get_world_size()
torch.set_num_threads(1)
torch.manual_seed(args.seed)


def log(*a):
    if rank == 0:
        print(*a, flush=True)


names = args.inputs.split(",")
common = dict(inputs=names, targets=[args.target], val_fraction=args.val_fraction, seed=args.seed)
train = CollectedDataset(args.data, split="train", padded=True, **common)
val = CollectedDataset(args.data, split="val", **common)
for i, name in enumerate(names):  # a log-uniform input is better learnt as its log
    if name in args.log_inputs.split(","):
        train.x[:, i], val.x[:, i] = train.x[:, i].log(), val.x[:, i].log()

# Normalisation from the training rows of every rank (sums over the shards, padding left out).
own = train.x[: (train.arrays.total_rows - rank + world - 1) // world]
own_y = train.y[: len(own)]
sums = torch.cat([own.sum(0), (own ** 2).sum(0), own_y.sum(0), (own_y ** 2).sum(0),
                  torch.tensor([float(len(own))])]).double()
dist.all_reduce(sums)
d, t = own.shape[1], own_y.shape[1]
n = sums[-1]
x_mean, y_mean = sums[:d] / n, sums[2 * d:2 * d + t] / n
x_std = (sums[d:2 * d] / n - x_mean ** 2).clamp_min(1e-12).sqrt()
y_std = (sums[2 * d + t:2 * d + 2 * t] / n - y_mean ** 2).clamp_min(1e-12).sqrt()
x_mean, x_std, y_mean, y_std = (v.float() for v in (x_mean, x_std, y_mean, y_std))

widths = [d] + [int(w) for w in args.hidden.split(",")]
layers = []
for a, b in zip(widths, widths[1:]):
    layers += [nn.Linear(a, b), nn.SiLU()]
model = nn.Sequential(*layers, nn.Linear(widths[-1], t))
ddp = DDP(model)
opt = torch.optim.Adam(model.parameters(), lr=args.lr)
sched = torch.optim.lr_scheduler.ExponentialLR(opt, gamma=args.lr_decay)

state = {"epoch": 0, "best_rmse": float("inf"), "best_epoch": 0, "reached_at_s": None,
         "elapsed_s": 0.0, "history": [], "resumed_from": []}
ckpt = os.path.join(args.checkpoint, "last.pt") if args.checkpoint else ""
if ckpt and os.path.exists(ckpt):
    saved = torch.load(ckpt)
    model.load_state_dict(saved["model"])
    opt.load_state_dict(saved["optimizer"])
    sched.load_state_dict(saved["scheduler"])
    state = saved["state"]
    state["resumed_from"].append(state["epoch"])
    log(f"resumed from {ckpt} at epoch {state['epoch']}")
elapsed_before = state["elapsed_s"]


def save_atomically(obj, path):
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    tmp = f"{path}.tmp.{os.getpid()}"
    torch.save(obj, tmp)
    os.replace(tmp, path)


def val_rmse():
    model.eval()
    with torch.no_grad():
        pred = model((val.x - x_mean) / x_std) * y_std + y_mean
        sq = torch.tensor([((pred - val.y) ** 2).sum().item(), float(len(val.x))], dtype=torch.float64)
    dist.all_reduce(sq)
    model.train()
    return (sq[0] / (sq[1] * t)).sqrt().item()


log(f"{world} ranks, {train.arrays.total_rows} training rows, {val.arrays.total_rows} validation rows")
while state["epoch"] < args.epochs:
    epoch = state["epoch"] + 1
    g = torch.Generator().manual_seed(args.seed * 100003 + epoch)  # the same order after a resume
    loader = DataLoader(train, batch_size=args.batch, shuffle=True, generator=g)
    total = 0.0
    for xb, yb in loader:
        opt.zero_grad()
        loss = nn.functional.mse_loss(ddp((xb - x_mean) / x_std), (yb - y_mean) / y_std)
        loss.backward()
        opt.step()
        total += loss.item() * len(xb)
    sched.step()
    rmse = val_rmse()
    state["epoch"] = epoch
    state["elapsed_s"] = elapsed_before + time.monotonic() - STARTED
    state["history"].append(rmse)
    best = rmse < state["best_rmse"]
    if best:
        state["best_rmse"], state["best_epoch"] = rmse, epoch
    reached = args.target_error > 0 and rmse <= args.target_error
    if reached and state["reached_at_s"] is None:
        state["reached_at_s"] = state["elapsed_s"]
    if rank == 0:
        if best:
            save_atomically({"model": model.state_dict(), "inputs": names, "target": args.target,
                             "hidden": args.hidden, "x_mean": x_mean, "x_std": x_std,
                             "y_mean": y_mean, "y_std": y_std, "epoch": epoch},
                            os.path.join(args.out, "model.pt"))
        if ckpt:
            save_atomically({"model": model.state_dict(), "optimizer": opt.state_dict(),
                             "scheduler": sched.state_dict(), "state": state}, ckpt)
    log(f"epoch {epoch} loss {total / len(train):.5f} val_rmse {rmse:.4f} lr {sched.get_last_lr()[0]:.2e}"
        f"{' best' if best else ''}")
    if reached:
        log(f"target error {args.target_error} reached at epoch {epoch}: stopping")
        break

if rank == 0:
    report = {"ranks": world, "epochs_run": state["epoch"], "max_epochs": args.epochs,
              "best_epoch": state["best_epoch"], "best_val_rmse": state["best_rmse"],
              "target_error": args.target_error or None,
              "reached_target": state["reached_at_s"] is not None,
              "time_to_target_s": state["reached_at_s"], "wall_s": state["elapsed_s"],
              "resumed_from_epochs": state["resumed_from"], "val_rmse_per_epoch": state["history"],
              "train_rows": train.arrays.total_rows, "val_rows": val.arrays.total_rows}
    os.makedirs(args.out, exist_ok=True)
    with open(os.path.join(args.out, "report.json"), "w") as f:
        json.dump(report, f, indent=1)
dist.destroy_process_group()
