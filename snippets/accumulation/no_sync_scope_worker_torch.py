"""One of the two training processes that no_sync_scope_torch.py starts."""

import json
import os
import sys
from contextlib import nullcontext
from datetime import timedelta

import torch
import torch.distributed as dist
from torch.distributed.algorithms.ddp_comm_hooks.default_hooks import allreduce_hook
from torch.distributed.fsdp import fully_shard
from torch.nn.parallel import DistributedDataParallel

dist.init_process_group("gloo", timeout=timedelta(seconds=30))  # reads RANK, WORLD_SIZE, MASTER_*
rank = dist.get_rank()
torch.manual_seed(0)  # the same weights in every process
model = torch.nn.Linear(4, 1)
ddp_model = DistributedDataParallel(model)
samples = torch.randn(4, 4) + rank  # each process its own data
all_reduces = 0


def counting_allreduce(state, bucket):
    global all_reduces
    all_reduces += 1
    return allreduce_hook(state, bucket)


ddp_model.register_comm_hook(None, counting_allreduce)


def same_on_all_ranks(tensor):
    gathered = [torch.empty_like(tensor) for _ in range(dist.get_world_size())]
    dist.all_gather(gathered, tensor)
    return all(torch.equal(t, gathered[0]) for t in gathered)


def ddp_backward(forward_inside, backward_inside):
    """One micro-batch with no_sync() around the forward, the backward, both or neither."""
    global all_reduces
    all_reduces = 0
    ddp_model.zero_grad()
    with ddp_model.no_sync() if forward_inside else nullcontext():
        loss = ddp_model(samples).sum()
    with ddp_model.no_sync() if backward_inside else nullcontext():
        loss.backward()
    return {"all-reduces": all_reduces, "same gradient": same_on_all_ranks(model.weight.grad)}


def fsdp_backward(when):
    """FSDP2: set_requires_gradient_sync(False) before the forward, or after it."""
    torch.manual_seed(0)
    sharded = torch.nn.Sequential(torch.nn.Linear(4, 4), torch.nn.Linear(4, 1))
    fully_shard(sharded)
    if when == "before the forward":
        sharded.set_requires_gradient_sync(False)
    loss = sharded(samples).sum()
    if when == "between forward and backward":
        sharded.set_requires_gradient_sync(False)
    with torch.profiler.profile() as profiler:  # records every operation that runs
        loss.backward()
    names = {event.name for event in profiler.events()}
    return {"reduce-scatters": sum("reduce_scatter" in name for name in names)}


report = {
    "no_sync() around forward and backward": ddp_backward(True, True),
    "no_sync() around the forward only": ddp_backward(True, False),
    "no_sync() around the backward only": ddp_backward(False, True),
    "no no_sync()": ddp_backward(False, False),
    "FSDP2: sync off before the forward": fsdp_backward("before the forward"),
    "FSDP2: sync off between forward and backward": fsdp_backward("between forward and backward"),
    "FSDP2: sync left on": fsdp_backward("never"),
}
print(json.dumps(report))
dist.destroy_process_group()
sys.stdout.flush()
os._exit(0)  # skip interpreter shutdown, which gloo's threads can still abort
