from functools import partial

import paddle
import paddle.nn.functional as F
from paddle.distributed.fleet.utils import recompute

paddle.seed(0)
linear = paddle.nn.Linear(2, 2)
flatten = paddle.nn.Flatten()
mask = paddle.to_tensor([[1.0, 0.0]])  # data: stop_gradient=True, to_tensor's default


def block(hidden):
    hidden = F.relu_(hidden)  # the block's first write goes into its input
    return linear(hidden)


def doubling_block(hidden):
    hidden = hidden.scale_(2.0)  # into its input too; doubling twice is not doubling once
    return linear(hidden)


def flattened_block(hidden):
    hidden = flatten(hidden).scale_(2.0)  # writes into its input too
    return linear(hidden)


def intermediate_block(hidden):
    return linear(hidden).scale_(2.0)  # writes into a tensor the block made itself


def out_of_place_block(hidden):
    hidden = F.relu(hidden)
    return linear(hidden)


def masked_block(hidden, mask):
    return linear(hidden) * mask, mask  # hands its input `mask` on to the next block


def weight_grad(forward):
    """Call `forward` on `weight * 3`, then backward: the gradients, or where it raised."""
    linear.clear_gradients()
    weight = paddle.to_tensor([[1.0, -2.0]], stop_gradient=False)
    hidden = weight * 3  # not a leaf: an in-place write into it is allowed
    try:
        output = forward(hidden)
    except ValueError as error:
        return {"raised at": "the call", "error": f"{type(error).__name__}: {message(error)}"}
    input_after_call = hidden.tolist()
    try:
        output.sum().backward()
    except OSError as error:  # an error inside a backward node arrives as OSError "(External)"
        return {"raised at": "backward", "error": f"{type(error).__name__}: {message(error)}"}
    return {
        "weight.grad": weight.grad.tolist(),
        "linear.weight.grad": linear.weight.grad.tolist(),
        "input, after the call": input_after_call,
        "input, after backward": hidden.tolist(),
    }


def message(error):
    """The message up to Paddle's "[Hint: ...]", which gives the C++ check and the call stack."""
    return str(error).split("[Hint")[0].strip()


mask_stop_gradient_before = mask.stop_gradient
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
        results[f"recompute({name}, hidden, use_reentrant={reentrant})"] = weight_grad(
            partial(recompute, fn, use_reentrant=reentrant)
        )
results["masked_block(hidden, mask)"] = weight_grad(lambda hidden: masked_block(hidden, mask)[0])
results["recompute(masked_block, hidden, mask, use_reentrant=False)"] = weight_grad(
    lambda hidden: recompute(masked_block, hidden, mask, use_reentrant=False)[0]
)
results["recompute(masked_block, hidden, mask, use_reentrant=True)"] = weight_grad(
    lambda hidden: recompute(masked_block, hidden, mask, use_reentrant=True)[0]
)
for call, result in results.items():
    print(call)
    for key, value in result.items():
        print(f"    {key}: {value}")
print(f"mask.stop_gradient: {mask_stop_gradient_before} before the calls,")
print(f"                    {mask.stop_gradient} after them")
