from functools import partial

import paddle
import paddle.nn.functional as F
from paddle.distributed.fleet.utils import recompute

paddle.seed(0)
first = paddle.nn.Linear(2, 2)
second = paddle.nn.Linear(2, 2)
data = paddle.to_tensor([[1.0, -2.0], [0.5, 3.0]])  # data: stop_gradient=True, to_tensor's default


def block(hidden):
    return F.relu_(second(hidden)[:, :])  # returns a slice of its layer's output, written in place


def partial_block(hidden):
    return F.relu_(second(hidden)[:, :1])  # the first column only


def gradients(forward):
    """`forward` on the output of `first`, then backward: both layers' weight gradients."""
    for parameter in first.parameters() + second.parameters():
        parameter.clear_gradient(False)  # None, not zeros: a gradient never computed shows
    output = forward(first(data))
    output.sum().backward()
    return {
        name: None if layer.weight.grad is None else layer.weight.grad.tolist()
        for name, layer in [("first", first), ("second", second)]
    }


results = {}
for name, fn in [("block", block), ("partial_block", partial_block)]:
    results[f"{name}(hidden)"] = gradients(fn)
    for reentrant in (True, False):
        results[f"recompute({name}, hidden, use_reentrant={reentrant})"] = gradients(
            partial(recompute, fn, use_reentrant=reentrant)
        )
for call, result in results.items():
    print(call)
    for name, grad in result.items():
        print(f"    {name}.weight.grad: {grad}")
