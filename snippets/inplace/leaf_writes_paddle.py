import paddle

# The messages that mean "autograd refused this write"; anything else is re-raised.
REFUSALS = ("that doesn't stop gradient can't use inplace strategy",)


def try_write(write):
    """Apply one write to a fresh leaf and report what happened to it."""
    weight = paddle.to_tensor([1.0, 2.0, 3.0], stop_gradient=False)
    source = paddle.to_tensor([5.0, 6.0, 7.0])
    try:
        write(weight, source)
        error = None
    except ValueError as exc:
        if not any(text in str(exc) for text in REFUSALS):
            raise
        error = "ValueError"
    changed = weight.tolist() != [1.0, 2.0, 3.0]
    return {
        "error": error,
        "data changed": changed,
        "version": weight.inplace_version,
        "leaf": weight.is_leaf,
    }


def assign_item(weight, source):
    weight[0] = 0.0


def exponential_under_no_grad(weight, source):
    with paddle.no_grad():
        weight.exponential_()


index = paddle.to_tensor([0])
WRITES = {
    "weight.scale_(2)": lambda weight, source: weight.scale_(2.0),
    "weight.exp_()": lambda weight, source: weight.exp_(),
    "weight.zero_()": lambda weight, source: weight.zero_(),
    "weight.index_fill_(index, 0, 9)": lambda weight, source: weight.index_fill_(index, 0, 9.0),
    "weight.exponential_()": lambda weight, source: weight.exponential_(),
    "weight.exponential_(), no_grad": exponential_under_no_grad,
    "weight[0] = 0": assign_item,
    "weight[:2].scale_(2)": lambda weight, source: weight[:2].scale_(2.0),
    "weight.copy_(source, True)": lambda weight, source: weight.copy_(source, True),
    "paddle.add(source, source, out=weight)": lambda weight, source: paddle.add(
        source, source, out=weight
    ),
    "paddle.assign(source, output=weight)": lambda weight, source: paddle.assign(
        source, output=weight
    ),
    "weight.set_value(source)": lambda weight, source: weight.set_value(source),
    "weight.detach().scale_(2)": lambda weight, source: weight.detach().scale_(2.0),
}
outcome = {name: try_write(write) for name, write in WRITES.items()}
for name, result in outcome.items():
    print(f"{name:40} {result}")
