"""One of the two training processes that ddp_uneven_paddle.py starts."""

import json
from contextlib import nullcontext

import paddle
import paddle.distributed as dist

dist.init_parallel_env()  # reads PADDLE_TRAINER_ID, PADDLE_TRAINERS_NUM, PADDLE_TRAINER_ENDPOINTS...
rank = dist.get_rank()

accumulation_steps = 4
paddle.seed(0)  # the same initial weights in every process
model = paddle.nn.Linear(4, 1)
dp_model = paddle.DataParallel(model)
paddle.seed(1 + rank)  # but its own data in each process
# Uneven data: rank 0 gets 10 batches, rank 1 only 9.
batches = [paddle.randn([2, 4]) for _ in range(10 if rank == 0 else 9)]

windows, window = [], []  # the flushed recipe's windows, as this process runs them
for i, batch in enumerate(batches):
    last_of_window = (i + 1) % accumulation_steps == 0 or i + 1 == len(batches)
    with nullcontext() if last_of_window else dp_model.no_sync():
        (dp_model(batch).mean() / accumulation_steps).backward()
    window.append(i)
    if last_of_window:  # this backward all-reduced the gradients
        windows.append({"batches": window, "grad": model.weight.grad.flatten().tolist()})
        window = []
        dp_model.clear_gradients()
print(json.dumps(windows))
