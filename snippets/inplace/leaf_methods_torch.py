import torch

# The messages that mean "autograd refused this write"; anything else is re-raised.
REFUSALS = (
    "a leaf Variable that requires grad is being used in an in-place operation",
    "cannot resize variables that require grad",
)
VALUES = [[1.5, -2.5, 0.25, 4.0]]  # one row: a shape-changing method has a dimension to drop


def try_method(call):
    """Call one in-place method on a fresh leaf that requires gradients; report what it did."""
    weight = torch.tensor(VALUES, requires_grad=True)
    try:
        call(weight)
        error = None
    except RuntimeError as exc:
        if not any(text in str(exc) for text in REFUSALS):
            raise
        error = "RuntimeError"
    return {
        "error": error,
        "data changed": list(weight.shape) != [1, 4] or weight.tolist() != VALUES,
        "shape": list(weight.shape),
        "version": weight._version,
        "leaf": weight.is_leaf,
    }


ones = torch.ones(1, 4)
mask = torch.tensor([[True, False, True, False]])
index = torch.tensor([0])
METHODS = {
    "arithmetic": {
        "add_": lambda w: w.add_(ones),
        "sub_": lambda w: w.sub_(ones),
        "mul_": lambda w: w.mul_(ones * 2),
        "div_": lambda w: w.div_(ones * 2),
        "mul_(2.0)": lambda w: w.mul_(2.0),
        "pow_": lambda w: w.pow_(2),
        "clamp_": lambda w: w.clamp_(-1.0, 1.0),
    },
    "element-wise": {
        "exp_": lambda w: w.exp_(),
        "sin_": lambda w: w.sin_(),
        "sqrt_": lambda w: w.sqrt_(),
        "tanh_": lambda w: w.tanh_(),
        "reciprocal_": lambda w: w.reciprocal_(),
        "abs_": lambda w: w.abs_(),
        "floor_": lambda w: w.floor_(),
    },
    "fill and random": {
        "zero_": lambda w: w.zero_(),
        "fill_": lambda w: w.fill_(7.0),
        "uniform_": lambda w: w.uniform_(),
        "normal_": lambda w: w.normal_(),
        "exponential_": lambda w: w.exponential_(),
        "copy_": lambda w: w.copy_(ones),
    },
    "indexing and masking": {
        "masked_fill_": lambda w: w.masked_fill_(mask, 0.0),
        "index_fill_": lambda w: w.index_fill_(0, index, 9.0),
        "index_add_": lambda w: w.index_add_(0, index, ones),
        "scatter_": lambda w: w.scatter_(1, torch.tensor([[1]]), 9.0),
        "index_put_": lambda w: w.index_put_((index,), ones),
        "fill_diagonal_": lambda w: w.fill_diagonal_(5.0),
    },
    "shape-changing": {
        "unsqueeze_": lambda w: w.unsqueeze_(0),
        "squeeze_": lambda w: w.squeeze_(),
        "t_": lambda w: w.t_(),
        "transpose_": lambda w: w.transpose_(0, 1),
        "resize_": lambda w: w.resize_(2, 2),
    },
}
outcome = {
    kind: {name: try_method(call) for name, call in methods.items()}
    for kind, methods in METHODS.items()
}
for kind, results in outcome.items():
    print(kind)
    for name, result in results.items():
        print(f"  {name:16} {result}")
