"""One of the two training processes that ddp_token_loss_torch.py starts."""

import json
import os
import sys
from contextlib import nullcontext
from datetime import timedelta

import torch
import torch.distributed as dist
import torch.nn.functional as F
from torch.nn.parallel import DistributedDataParallel

dist.init_process_group("gloo", timeout=timedelta(seconds=30))  # reads RANK, WORLD_SIZE, MASTER_*
rank, world_size = dist.get_rank(), dist.get_world_size()

# Items (think: tokens that are not padding) in each micro-batch of one accumulation window.
# The two processes see different numbers: 8 items on rank 0, 4 on rank 1.
items_per_micro_batch = [[6, 2], [1, 3]]
accumulation_steps = 2
torch.manual_seed(0)  # the same weights and data in every process
model = torch.nn.Linear(4, 1)
samples = torch.randn(12, 4)
targets = torch.randn(12, 1)

# Reference: one process, the mean loss over all 12 items.
F.mse_loss(model(samples), targets).backward()
full_batch_grad = model.weight.grad.clone()
model.zero_grad()

ddp_model = DistributedDataParallel(model)
items_per_rank = [sum(items) for items in items_per_micro_batch]
my_samples = samples.split(items_per_rank)[rank].split(items_per_micro_batch[rank])
my_targets = targets.split(items_per_rank)[rank].split(items_per_micro_batch[rank])

# Count the window's items on every process before the first backward, and agree on the sum.
local_count = torch.tensor(float(items_per_rank[rank]))
global_count = local_count.clone()
dist.all_reduce(global_count)  # sum over processes: 12


def accumulated_grad(normalise):
    ddp_model.zero_grad()
    for step, (micro_batch, target) in enumerate(zip(my_samples, my_targets, strict=True), start=1):
        with ddp_model.no_sync() if step < accumulation_steps else nullcontext():
            per_item = F.mse_loss(ddp_model(micro_batch), target, reduction="none")
            normalise(per_item).backward()
    return model.weight.grad


normalisers = {
    "mean / accumulation_steps": lambda per_item: per_item.mean() / accumulation_steps,
    "sum / local count": lambda per_item: per_item.sum() / local_count,
    "sum / global count": lambda per_item: per_item.sum() / global_count,
    # DDP averages the gradients over the processes: multiply by world_size to undo it.
    "sum / global count * world_size": lambda per_item: per_item.sum() / global_count * world_size,
}
grads = {
    name: accumulated_grad(normalise).flatten().tolist() for name, normalise in normalisers.items()
}
# Or: backward the plain sums, and scale the gradient once the window's count is known.
summed_grad = accumulated_grad(lambda per_item: per_item.sum())
grads["sum, then grad * world_size / global count"] = (
    (summed_grad * world_size / global_count).flatten().tolist()
)
errors = {
    name: (torch.tensor(grad) - full_batch_grad.flatten()).abs().max().item()
    for name, grad in grads.items()
}
report = {
    "rank": rank,
    "global_count": global_count.item(),
    "grads": grads,
    "max_abs_error": errors,
}
print(json.dumps(report))
dist.destroy_process_group()
sys.stdout.flush()
os._exit(0)  # skip interpreter shutdown, which gloo's threads can still abort
