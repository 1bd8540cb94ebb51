"""A user's PyTorch DDP script as torchrun would run it: env:// initialisation, nothing merlin-
specific. Each rank averages a tensor with the others and writes one line of what it saw.

The test (tests/integration/torch_ddp.sh) runs two such tasks at once; after initialising,
each task's rank 0 marks itself ready in BARRIER_DIR and waits (at most 120 s) for the other,
so that both process groups are provably up at the same time on their own ports.
"""
import os
import sys
import time

import torch
import torch.distributed as dist

task, barrier_dir, expect = sys.argv[1], sys.argv[2], int(sys.argv[3])
dist.init_process_group("gloo")  # reads MASTER_ADDR, MASTER_PORT, RANK, WORLD_SIZE
rank, world = dist.get_rank(), dist.get_world_size()

if rank == 0:
    open(os.path.join(barrier_dir, task + ".ready"), "w").close()
    deadline = time.monotonic() + 120
    while len([f for f in os.listdir(barrier_dir) if f.endswith(".ready")]) < expect:
        if time.monotonic() > deadline:
            sys.exit("the other tasks never came up")
        time.sleep(0.05)
dist.barrier()

t = torch.tensor([float(rank + 1)])
dist.all_reduce(t)  # 1 + 2 + ... + world
keys = ["RANK", "WORLD_SIZE", "LOCAL_RANK", "LOCAL_WORLD_SIZE", "NODE_RANK", "MASTER_ADDR",
        "MASTER_PORT"]
print(f"task={task} sum={t.item():g} " + " ".join(f"{k}={os.environ.get(k, '-')}" for k in keys),
      flush=True)
dist.destroy_process_group()
