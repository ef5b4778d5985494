from functools import partial

import torch
import torch.nn.functional as F
from torch.utils.checkpoint import checkpoint

torch.manual_seed(0)
linear = torch.nn.Linear(2, 2)
flatten = torch.nn.Flatten()
mask = torch.tensor([[1.0, 0.0]])  # data that needs no gradient


def block(hidden):
    hidden = F.relu(hidden, inplace=True)  # the block's first write goes into its input
    return linear(hidden)


def doubling_block(hidden):
    hidden = hidden.mul_(2)  # into its input too; doubling twice is not doubling once
    return linear(hidden)


def flattened_block(hidden):
    hidden = flatten(hidden).mul_(2)  # writes into its input too
    return linear(hidden)


def intermediate_block(hidden):
    return linear(hidden).mul_(2)  # writes into a tensor the block made itself


def out_of_place_block(hidden):
    hidden = F.relu(hidden)
    return linear(hidden)


def masked_block(hidden, mask):
    return linear(hidden) * mask, mask  # hands its input `mask` on to the next block


def weight_grad(forward):
    """Call `forward` on `weight * 3`, then backward: the gradients, or where it raised."""
    linear.zero_grad()
    weight = torch.tensor([[1.0, -2.0]], requires_grad=True)
    hidden = weight * 3  # not a leaf: an in-place write into it is allowed
    try:
        output = forward(hidden)
    except RuntimeError as error:
        return {"raised at": "the call", "error": f"{type(error).__name__}: {error}"}
    input_after_call = hidden.tolist()
    try:
        output.sum().backward()
    except RuntimeError as error:
        return {"raised at": "backward", "error": f"{type(error).__name__}: {error}"}
    return {
        "weight.grad": weight.grad.tolist(),
        "linear.weight.grad": linear.weight.grad.tolist(),
        "input, after the call": input_after_call,
        "input, after backward": hidden.tolist(),
    }


results = {}
for name, fn in [
    ("block", block),
    ("doubling_block", doubling_block),
    ("flattened_block", flattened_block),
    ("intermediate_block", intermediate_block),
    ("out_of_place_block", out_of_place_block),
]:
    results[f"{name}(hidden)"] = weight_grad(fn)
    for reentrant in (True, False):
        results[f"checkpoint({name}, hidden, use_reentrant={reentrant})"] = weight_grad(
            partial(checkpoint, fn, use_reentrant=reentrant)
        )
results["masked_block(hidden, mask)"] = weight_grad(lambda hidden: masked_block(hidden, mask)[0])
results["checkpoint(masked_block, hidden, mask, use_reentrant=False)"] = weight_grad(
    lambda hidden: checkpoint(masked_block, hidden, mask, use_reentrant=False)[0]
)
results["checkpoint(masked_block, hidden, mask, use_reentrant=True)"] = weight_grad(
    lambda hidden: checkpoint(masked_block, hidden, mask, use_reentrant=True)[0]
)
for call, result in results.items():
    print(call)
    for key, value in result.items():
        print(f"    {key}: {value}")
