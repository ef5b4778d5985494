"""One of the two training processes that ddp_two_forwards_torch.py starts."""

import json
import os
import re
import sys
import warnings
from datetime import timedelta

import torch
import torch.distributed as dist
from torch import nn
from torch.distributed.fsdp import fully_shard
from torch.nn.parallel import DistributedDataParallel

dist.init_process_group("gloo", timeout=timedelta(seconds=30))  # reads RANK, WORLD_SIZE, MASTER_*
rank = dist.get_rank()
warnings.filterwarnings("ignore", "`broadcast_buffers` is deprecated")  # PyTorch 2.13 deprecates it


def discriminator():
    torch.manual_seed(0)  # the same weights in every process
    return nn.Sequential(nn.Linear(4, 4), nn.BatchNorm1d(4), nn.Linear(4, 1))


def two_forwards(model):
    real, fake = torch.randn(8, 4) + rank, torch.randn(8, 4)  # each process its own data
    (model(real).mean() - model(fake).mean()).backward()  # two forwards, one backward


def one_forward(model):
    real, fake = torch.randn(8, 4) + rank, torch.randn(8, 4)
    scores = model(torch.cat([real, fake]))  # one forward over both batches
    (scores[:8].mean() - scores[8:].mean()).backward()


def backward_between(model):
    real, fake = torch.randn(8, 4) + rank, torch.randn(8, 4)
    model(real).mean().backward()
    (-model(fake).mean()).backward()


def same_on_all_ranks(tensor):
    gathered = [torch.empty_like(tensor) for _ in range(dist.get_world_size())]
    dist.all_gather(gathered, tensor)
    return all(torch.equal(t, gathered[0]) for t in gathered)


def run(wrap, step):
    """Wrap a fresh discriminator, run one training step; what happened and its statistics."""
    module = discriminator()
    torch.manual_seed(1 + rank)
    try:
        model = wrap(module)
        step(model)
        model.eval()
        model(torch.zeros(1, 4))  # DDP broadcasts the buffers of rank 0 before a forward
        result = "runs"
    except (RuntimeError, ValueError) as error:
        message = str(error)  # up to the versions, or the first clause
        short = (
            message.split(" instead")[0] if "version" in message else re.split(r"[:.]", message)[0]
        )
        result = f"{type(error).__name__}: {short}"
    same = same_on_all_ranks(module[1].running_mean) if result == "runs" else "not run"
    return {"result": result, "same statistics after a forward": same}


def sync_batchnorm(module):
    return DistributedDataParallel(nn.SyncBatchNorm.convert_sync_batchnorm(module))


report = {
    "DDP, two forwards": run(DistributedDataParallel, two_forwards),
    "DDP(broadcast_buffers=False), two forwards": run(
        lambda module: DistributedDataParallel(module, broadcast_buffers=False), two_forwards
    ),
    "DDP, one forward": run(DistributedDataParallel, one_forward),
    "DDP, backward between forwards": run(DistributedDataParallel, backward_between),
    "DDP + SyncBatchNorm, two forwards": run(sync_batchnorm, two_forwards),
    "fully_shard, two forwards": run(lambda module: fully_shard(module), two_forwards),
}
print(json.dumps(report))
dist.destroy_process_group()
sys.stdout.flush()
os._exit(0)  # skip interpreter shutdown, which gloo's threads can still abort
