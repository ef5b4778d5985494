"""One of the two training processes that ddp_two_forwards_paddle.py starts."""

import json
import re

import paddle
import paddle.distributed as dist
from paddle import nn

dist.init_parallel_env()  # reads PADDLE_TRAINER_ID, PADDLE_TRAINERS_NUM, PADDLE_TRAINER_ENDPOINTS...
rank = dist.get_rank()


def discriminator():
    paddle.seed(0)  # the same weights in every process
    return nn.Sequential(nn.Linear(4, 4), nn.BatchNorm1D(4), nn.Linear(4, 1))


def two_forwards(model):
    real, fake = paddle.randn([8, 4]) + rank, paddle.randn([8, 4])  # each process its own data
    (model(real).mean() - model(fake).mean()).backward()  # two forwards, one backward


def one_forward(model):
    real, fake = paddle.randn([8, 4]) + rank, paddle.randn([8, 4])
    scores = model(paddle.concat([real, fake]))  # one forward over both batches
    (scores[:8].mean() - scores[8:].mean()).backward()


def backward_between(model):
    real, fake = paddle.randn([8, 4]) + rank, paddle.randn([8, 4])
    model(real).mean().backward()
    (-model(fake).mean()).backward()


def same_on_all_ranks(tensor):
    gathered = []
    dist.all_gather(gathered, tensor)
    return all(bool(paddle.equal_all(t, gathered[0])) for t in gathered)


def run(wrap, step):
    """Wrap a fresh discriminator, run one training step; what happened and its statistics."""
    module = discriminator()
    module[1]._mean.set_value(paddle.full([4], float(rank)))  # each process its own statistics
    paddle.seed(1 + rank)
    try:
        model = wrap(module)
        statistics = module[1]._mean  # process 0 set them to 0.0
        from_process_0 = same_on_all_ranks(statistics) and bool((statistics == 0.0).all())
        step(model)
        model.eval()
        model(paddle.zeros([1, 4]))
        result = "runs"
    except RuntimeError as error:
        result = f"RuntimeError: {re.split(r'[:.]', str(error))[0]}"
    if result != "runs":
        return {"result": result, "same statistics after a forward": "not run"}
    return {
        "result": result,
        "process 0's statistics after wrapping": from_process_0,
        "same statistics after a forward": same_on_all_ranks(module[1]._mean),
    }


def sync_batchnorm(module):
    return paddle.DataParallel(nn.SyncBatchNorm.convert_sync_batchnorm(module))


report = {
    "BatchNorm statistics are parameters": "_mean" in dict(nn.BatchNorm1D(4).named_parameters()),
    "DataParallel, two forwards": run(paddle.DataParallel, two_forwards),
    "DataParallel, one forward": run(paddle.DataParallel, one_forward),
    "DataParallel, backward between forwards": run(paddle.DataParallel, backward_between),
    "DataParallel + SyncBatchNorm, two forwards": run(sync_batchnorm, two_forwards),
}
print(json.dumps(report))
