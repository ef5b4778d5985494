import paddle

# The message that means "autograd refused this write"; anything else is re-raised.
REFUSAL = "that doesn't stop gradient can't use inplace strategy"
VALUES = [[1.5, -2.5, 0.25, 4.0]]  # one row: a shape-changing method has a dimension to drop


def try_method(call):
    """Call one in-place method on a fresh leaf that requires gradients; report what it did."""
    weight = paddle.to_tensor(VALUES, stop_gradient=False)
    try:
        call(weight)
        error = None
    except ValueError as exc:
        if REFUSAL not in str(exc):
            raise
        error = "ValueError"
    return {
        "error": error,
        "data changed": weight.shape != [1, 4] or weight.tolist() != VALUES,
        "shape": list(weight.shape),
        "version": weight.inplace_version,
        "leaf": weight.is_leaf,
    }


ones = paddle.ones([1, 4])
mask = paddle.to_tensor([[True, False, True, False]])
index = paddle.to_tensor([0])
METHODS = {
    "arithmetic": {
        "add_": lambda w: w.add_(ones),
        "subtract_": lambda w: w.subtract_(ones),
        "multiply_": lambda w: w.multiply_(ones * 2),
        "divide_": lambda w: w.divide_(ones * 2),
        "scale_": lambda w: w.scale_(2.0),
        "pow_": lambda w: w.pow_(2),
        "clip_": lambda w: w.clip_(-1.0, 1.0),
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
    },
    "indexing and masking": {
        "masked_fill_": lambda w: w.masked_fill_(mask, 0.0),
        "index_fill_": lambda w: w.index_fill_(index, 0, 9.0),
        "index_add_": lambda w: w.index_add_(index, 0, ones),
        "scatter_": lambda w: w.scatter_(index, ones),
        "put_along_axis_": lambda w: w.put_along_axis_(paddle.to_tensor([[1]]), 9.0, 1),
        "fill_diagonal_": lambda w: w.fill_diagonal_(5.0),
    },
    "shape-changing": {
        "unsqueeze_": lambda w: w.unsqueeze_(0),
        "squeeze_": lambda w: w.squeeze_(),
        "flatten_": lambda w: w.flatten_(),
        "reshape_": lambda w: w.reshape_([2, 2]),
        "transpose_": lambda w: w.transpose_([1, 0]),
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
