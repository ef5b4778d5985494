import logging.handlers
import warnings

import paddle
from paddle.distributed.fleet.utils import recompute
from paddle.distributed.fleet.utils.log_util import logger  # the logger recompute writes to

paddle.seed(0)
first_block = paddle.nn.Sequential(paddle.nn.Linear(4, 4), paddle.nn.Tanh())
head = paddle.nn.Linear(4, 1)
batch = paddle.randn([8, 4])  # input data: stop_gradient=True
log = logging.handlers.BufferingHandler(capacity=100)  # keeps the log records in log.buffer
logger.addHandler(log)


def first_block_grad(**use_reentrant):
    first_block.clear_gradients(set_to_zero=False)
    log.buffer.clear()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        hidden = recompute(first_block, batch, **use_reentrant)
        head(hidden).square().mean().backward()
    grad = first_block[0].weight.grad
    messages = [str(warning.message).split(". ")[0] for warning in caught]
    logged = [record.getMessage() for record in log.buffer]
    called_with = ", ".join(f"{key}={value}" for key, value in use_reentrant.items()) or "default"
    print(f"{called_with:20} first block's weight.grad is {'None' if grad is None else 'set'}")
    print(f"    warnings: {messages}")
    print(f"    logged: {logged}")
    return grad, messages, logged


default_grad, default_warnings, default_logged = first_block_grad()
reentrant_grad, reentrant_warnings, reentrant_logged = first_block_grad(use_reentrant=True)
non_reentrant_grad, non_reentrant_warnings, non_reentrant_logged = first_block_grad(
    use_reentrant=False
)
