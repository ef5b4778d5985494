"""One of the two training processes that ddp_no_sync_paddle.py starts."""

import json
from contextlib import nullcontext

import paddle
import paddle.distributed as dist
import paddle.nn.functional as F

dist.init_parallel_env()  # reads PADDLE_TRAINER_ID, PADDLE_TRAINERS_NUM, PADDLE_TRAINER_ENDPOINTS...
rank, world_size = dist.get_rank(), dist.get_world_size()

accumulation_steps = 4
paddle.seed(0)  # the same weights and data in every process
model = paddle.nn.Linear(8, 1)
samples = paddle.randn([world_size * accumulation_steps * 2, 8])
targets = paddle.randn([world_size * accumulation_steps * 2, 1])

# Reference: one process, one backward over the whole batch.
F.mse_loss(model(samples), targets).backward()
full_batch_grad = model.weight.grad.clone()
model.clear_gradients()

dp_model = paddle.DataParallel(model)


def same_on_all_ranks(grad):
    gathered = []
    dist.all_gather(gathered, grad)
    return all(bool(paddle.equal_all(g, gathered[0])) for g in gathered)


# This process's share of the batch, cut into micro-batches.
my_samples = samples.chunk(world_size)[rank].chunk(accumulation_steps)
my_targets = targets.chunk(world_size)[rank].chunk(accumulation_steps)
report = {}
for use_no_sync in (False, True):
    synchronised = []
    dp_model.clear_gradients()
    for step, (micro_batch, target) in enumerate(zip(my_samples, my_targets, strict=True), start=1):
        # Skip the all-reduce on every micro-batch but the last one of the window.
        skip_sync = use_no_sync and step < accumulation_steps
        with dp_model.no_sync() if skip_sync else nullcontext():
            loss = F.mse_loss(dp_model(micro_batch), target) / accumulation_steps
            loss.backward()
        synchronised.append(same_on_all_ranks(model.weight.grad))
    difference = (model.weight.grad - full_batch_grad).abs().max().item()
    report["with no_sync" if use_no_sync else "without no_sync"] = {
        "equal_on_both_ranks": synchronised,
        "difference_to_full_batch": difference,
    }
print(json.dumps(report))
