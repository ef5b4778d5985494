"""One of the two training processes that built_in_accumulation_torch.py starts."""

import json
import os
import sys
from datetime import timedelta

import torch
import torch.distributed as dist
import torch.nn.functional as F
from torch.distributed.fsdp import fully_shard

dist.init_process_group("gloo", timeout=timedelta(seconds=30))  # reads RANK, WORLD_SIZE, MASTER_*
rank, world_size = dist.get_rank(), dist.get_world_size()

accumulation_steps = 4
torch.manual_seed(0)  # the same weights and data in every process
model = torch.nn.Sequential(torch.nn.Linear(8, 8), torch.nn.Tanh(), torch.nn.Linear(8, 1))
samples = torch.randn(world_size * accumulation_steps * 2, 8)
targets = torch.randn(world_size * accumulation_steps * 2, 1)

# Reference: one process, one backward over the whole batch.
F.mse_loss(model(samples), targets).backward()
full_batch_grads = [parameter.grad.clone() for parameter in model.parameters()]
model.zero_grad()

fully_shard(model)  # FSDP2: each process keeps a shard of every parameter and gradient
my_samples = samples.chunk(world_size)[rank].chunk(accumulation_steps)
my_targets = targets.chunk(world_size)[rank].chunk(accumulation_steps)
sharded_grad_exists = []  # a sharded .grad appears only when a reduce-scatter has run
collectives = []  # the communication operations that each micro-batch's backward ran
for step, (micro_batch, target) in enumerate(zip(my_samples, my_targets, strict=True), start=1):
    # FSDP's no_sync: reduce-scatter the gradients only on the last micro-batch of the window.
    model.set_requires_gradient_sync(step == accumulation_steps)
    with torch.profiler.profile() as profiler:  # records every operation that runs
        (F.mse_loss(model(micro_batch), target) / accumulation_steps).backward()
    names = {event.name for event in profiler.events()}
    collectives.append(sorted(n for n in names if "reduce_scatter" in n or "all_reduce" in n))
    sharded_grad_exists.append(model[0].weight.grad is not None)

grads = [parameter.grad.full_tensor() for parameter in model.parameters()]  # gather the shards
difference = max((g - f).abs().max().item() for g, f in zip(grads, full_batch_grads, strict=True))
print(
    json.dumps(
        {
            "rank": rank,
            "sharded_grad_exists": sharded_grad_exists,
            "collectives": collectives,
            "grad_type": type(model[0].weight.grad).__name__,
            "difference_to_full_batch": difference,
        }
    )
)
dist.destroy_process_group()
sys.stdout.flush()
os._exit(0)  # skip interpreter shutdown, which gloo's threads can still abort
