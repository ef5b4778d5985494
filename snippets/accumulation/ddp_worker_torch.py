"""One of the two training processes that ddp_no_sync_torch.py starts."""

import json
import os
import sys
from contextlib import nullcontext
from datetime import timedelta

import torch
import torch.distributed as dist
import torch.nn.functional as F
from torch.distributed.algorithms.ddp_comm_hooks.default_hooks import allreduce_hook
from torch.nn.parallel import DistributedDataParallel

dist.init_process_group("gloo", timeout=timedelta(seconds=30))  # reads RANK, WORLD_SIZE, MASTER_*
rank, world_size = dist.get_rank(), dist.get_world_size()

accumulation_steps = 4
torch.manual_seed(0)  # the same weights and data in every process
model = torch.nn.Linear(8, 1)
samples = torch.randn(world_size * accumulation_steps * 2, 8)
targets = torch.randn(world_size * accumulation_steps * 2, 1)

# Reference: one process, one backward over the whole batch.
F.mse_loss(model(samples), targets).backward()
full_batch_grad = model.weight.grad.clone()
model.zero_grad()

ddp_model = DistributedDataParallel(model)
all_reduces = 0


def counting_allreduce(state, bucket):
    global all_reduces
    all_reduces += 1
    return allreduce_hook(state, bucket)


ddp_model.register_comm_hook(None, counting_allreduce)


def same_on_all_ranks(grad):
    gathered = [torch.empty_like(grad) for _ in range(world_size)]
    dist.all_gather(gathered, grad)
    return all(torch.equal(g, gathered[0]) for g in gathered)


# This process's share of the batch, cut into micro-batches.
my_samples = samples.chunk(world_size)[rank].chunk(accumulation_steps)
my_targets = targets.chunk(world_size)[rank].chunk(accumulation_steps)
report = {}
for use_no_sync in (False, True):
    all_reduces, synchronised = 0, []
    ddp_model.zero_grad()
    for step, (micro_batch, target) in enumerate(zip(my_samples, my_targets, strict=True), start=1):
        # Skip the all-reduce on every micro-batch but the last one of the window.
        skip_sync = use_no_sync and step < accumulation_steps
        with ddp_model.no_sync() if skip_sync else nullcontext():
            loss = F.mse_loss(ddp_model(micro_batch), target) / accumulation_steps
            loss.backward()
        synchronised.append(same_on_all_ranks(model.weight.grad))
    difference = (model.weight.grad - full_batch_grad).abs().max().item()
    report["with no_sync" if use_no_sync else "without no_sync"] = {
        "all_reduces": all_reduces,
        "equal_on_both_ranks": synchronised,
        "difference_to_full_batch": difference,
    }
print(json.dumps(report))
dist.destroy_process_group()
sys.stdout.flush()
os._exit(0)  # skip interpreter shutdown, which gloo's threads can still abort
