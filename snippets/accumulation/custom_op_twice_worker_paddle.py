"""Run by custom_op_twice_paddle.py: two backwards through a custom operation."""

import json
import sys

import paddle
from paddle.autograd import PyLayer


class SquaredNorm(PyLayer):
    """A custom operation, (x * x).sum(), with a hand-written backward."""

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return (x * x).sum()

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensor()
        return 2 * x * grad


retain_graph = sys.argv[1] == "retain_graph=True"
weight = paddle.to_tensor([1.0, 2.0], stop_gradient=False)
loss = SquaredNorm.apply(weight)
loss.backward(retain_graph=retain_graph)
print(json.dumps({"grad after the first backward": weight.grad.tolist()}), flush=True)
try:
    loss.backward()
    print(json.dumps({"grad after the second backward": weight.grad.tolist()}), flush=True)
except (RuntimeError, SystemError) as error:
    print(json.dumps({"second backward raises": type(error).__name__}), flush=True)
