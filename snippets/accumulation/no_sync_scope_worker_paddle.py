"""One of the two training processes that no_sync_scope_paddle.py starts."""

import json
from contextlib import nullcontext

import paddle
import paddle.distributed as dist

dist.init_parallel_env()  # reads PADDLE_TRAINER_ID, PADDLE_TRAINERS_NUM, PADDLE_TRAINER_ENDPOINTS...
rank = dist.get_rank()
paddle.seed(0)  # the same weights in every process
model = paddle.nn.Linear(4, 1)
dp_model = paddle.DataParallel(model)
samples = paddle.randn([4, 4]) + rank  # each process its own data


def same_on_all_ranks(tensor):
    gathered = []
    dist.all_gather(gathered, tensor)
    return all(bool(paddle.equal_all(t, gathered[0])) for t in gathered)


def dp_backward(forward_inside, backward_inside):
    """One micro-batch with no_sync() around the forward, the backward, both or neither."""
    dp_model.clear_gradients()
    with dp_model.no_sync() if forward_inside else nullcontext():
        loss = dp_model(samples).sum()
    with dp_model.no_sync() if backward_inside else nullcontext():
        loss.backward()
    return {"same gradient": same_on_all_ranks(model.weight.grad)}


report = {
    "no_sync() around forward and backward": dp_backward(True, True),
    "no_sync() around the forward only": dp_backward(True, False),
    "no_sync() around the backward only": dp_backward(False, True),
    "no no_sync()": dp_backward(False, False),
}
print(json.dumps(report))
