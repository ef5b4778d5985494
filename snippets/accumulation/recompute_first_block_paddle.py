import warnings

import paddle
from paddle.distributed.fleet.utils import recompute

paddle.seed(0)
first_block = paddle.nn.Sequential(paddle.nn.Linear(4, 4), paddle.nn.Tanh())
head = paddle.nn.Linear(4, 1)
batch = paddle.randn([8, 4])  # input data: stop_gradient=True


def first_block_grad(**use_reentrant):
    first_block.clear_gradients(set_to_zero=False)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        hidden = recompute(first_block, batch, **use_reentrant)
        head(hidden).square().mean().backward()
    grad = first_block[0].weight.grad
    messages = [str(warning.message).split(". ")[0] for warning in caught]
    called_with = ", ".join(f"{key}={value}" for key, value in use_reentrant.items()) or "default"
    print(f"{called_with:20} first block's weight.grad is {'None' if grad is None else 'set'}")
    print(f"    warnings: {messages}")
    return grad, messages


default_grad, default_warnings = first_block_grad()
reentrant_grad, reentrant_warnings = first_block_grad(use_reentrant=True)
non_reentrant_grad, non_reentrant_warnings = first_block_grad(use_reentrant=False)
