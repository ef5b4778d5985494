"""One of the two training processes that ddp_uneven_torch.py starts."""

import json
import os
import sys
from contextlib import nullcontext
from datetime import timedelta

import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel

dist.init_process_group("gloo", timeout=timedelta(seconds=30))  # reads RANK, WORLD_SIZE, MASTER_*
rank = dist.get_rank()

accumulation_steps = 4
torch.manual_seed(0)  # the same initial weights in every process
model = torch.nn.Linear(4, 1)
ddp_model = DistributedDataParallel(model)
torch.manual_seed(1 + rank)  # but its own data in each process
# Uneven data: rank 0 gets 10 batches, rank 1 only 9.
batches = [torch.randn(2, 4) for _ in range(10 if rank == 0 else 9)]

windows, window = [], []  # the flushed recipe's windows, as this process runs them
for i, batch in enumerate(batches):
    last_of_window = (i + 1) % accumulation_steps == 0 or i + 1 == len(batches)
    with nullcontext() if last_of_window else ddp_model.no_sync():
        (ddp_model(batch).mean() / accumulation_steps).backward()
    window.append(i)
    if last_of_window:  # this backward all-reduced the gradients
        windows.append({"batches": window, "grad": model.weight.grad.flatten().tolist()})
        window = []
        ddp_model.zero_grad()
print(json.dumps(windows))
dist.destroy_process_group()
sys.stdout.flush()
os._exit(0)  # skip interpreter shutdown, which gloo's threads can still abort
