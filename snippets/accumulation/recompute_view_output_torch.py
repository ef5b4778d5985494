from functools import partial

import torch
from torch.utils.checkpoint import checkpoint

torch.manual_seed(0)
first = torch.nn.Linear(2, 2)
second = torch.nn.Linear(2, 2)
data = torch.tensor([[1.0, -2.0], [0.5, 3.0]])  # data that needs no gradient


def block(hidden):
    return second(hidden)[:, :].relu_()  # returns a slice of its layer's output, written in place


def partial_block(hidden):
    return second(hidden)[:, :1].relu_()  # the first column only


def gradients(forward):
    """`forward` on the output of `first`, then backward: both layers' weight gradients."""
    first.zero_grad()
    second.zero_grad()
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
        results[f"checkpoint({name}, hidden, use_reentrant={reentrant})"] = gradients(
            partial(checkpoint, fn, use_reentrant=reentrant)
        )
for call, result in results.items():
    print(call)
    for name, grad in result.items():
        print(f"    {name}.weight.grad: {grad}")
