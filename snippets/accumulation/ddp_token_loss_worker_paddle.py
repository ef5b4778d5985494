"""One of the two training processes that ddp_token_loss_paddle.py starts."""

import json
from contextlib import nullcontext

import paddle
import paddle.distributed as dist
import paddle.nn.functional as F

dist.init_parallel_env()  # reads PADDLE_TRAINER_ID, PADDLE_TRAINERS_NUM, PADDLE_TRAINER_ENDPOINTS...
rank, world_size = dist.get_rank(), dist.get_world_size()

# Items (think: tokens that are not padding) in each micro-batch of one accumulation window.
# The two processes see different numbers: 8 items on rank 0, 4 on rank 1.
items_per_micro_batch = [[6, 2], [1, 3]]
accumulation_steps = 2
paddle.seed(0)  # the same weights and data in every process
model = paddle.nn.Linear(4, 1)
samples = paddle.randn([12, 4])
targets = paddle.randn([12, 1])

# Reference: one process, the mean loss over all 12 items.
F.mse_loss(model(samples), targets).backward()
full_batch_grad = model.weight.grad.clone()
model.clear_gradients()

dp_model = paddle.DataParallel(model)
items_per_rank = [sum(items) for items in items_per_micro_batch]
my_samples = samples.split(items_per_rank)[rank].split(items_per_micro_batch[rank])
my_targets = targets.split(items_per_rank)[rank].split(items_per_micro_batch[rank])

# Count the window's items on every process before the first backward, and agree on the sum.
local_count = paddle.to_tensor(float(items_per_rank[rank]))
global_count = local_count.clone()
dist.all_reduce(global_count)  # sum over processes: 12


def accumulated_grad(normalise):
    dp_model.clear_gradients()
    for step, (micro_batch, target) in enumerate(zip(my_samples, my_targets, strict=True), start=1):
        with dp_model.no_sync() if step < accumulation_steps else nullcontext():
            per_item = F.mse_loss(dp_model(micro_batch), target, reduction="none")
            normalise(per_item).backward()
    return model.weight.grad


normalisers = {
    "mean / accumulation_steps": lambda per_item: per_item.mean() / accumulation_steps,
    "sum / local count": lambda per_item: per_item.sum() / local_count,
    "sum / global count": lambda per_item: per_item.sum() / global_count,
    # DataParallel averages the gradients over the processes: multiply by world_size to undo it.
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
    name: (paddle.to_tensor(grad) - full_batch_grad.flatten()).abs().max().item()
    for name, grad in grads.items()
}
report = {
    "rank": rank,
    "global_count": global_count.item(),
    "grads": grads,
    "max_abs_error": errors,
}
print(json.dumps(report))
