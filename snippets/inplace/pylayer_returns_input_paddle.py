import paddle


class Identity(paddle.autograd.PyLayer):
    """A custom operation whose forward returns its input tensor itself."""

    @staticmethod
    def forward(ctx, x):
        return x

    @staticmethod
    def backward(ctx, grad):
        return grad


class NotInplace(paddle.autograd.PyLayer):
    """The same, with the input marked as not written in place."""

    @staticmethod
    def forward(ctx, x):
        ctx.mark_not_inplace(x)
        return x

    @staticmethod
    def backward(ctx, grad):
        return grad


class FirstOfTwo(paddle.autograd.PyLayer):
    """A custom operation with two inputs whose forward returns the first one itself."""

    @staticmethod
    def forward(ctx, x, other):
        return x

    @staticmethod
    def backward(ctx, grad):
        return grad, paddle.zeros_like(grad)


def apply_to(layer, tensor, *others):
    """Apply `layer` to `tensor` (and `others`); report the error and the counter's step."""
    before = tensor.inplace_version
    try:
        layer.apply(tensor, *others)
        error = "no error"
    except ValueError as exc:
        if "can't use inplace strategy" not in str(exc):
            raise
        error = "ValueError"
    return {"error": error, "version step": tensor.inplace_version - before}


def leaf():
    return paddle.to_tensor([1.0, 2.0], stop_gradient=False)


def backward_after(layer):
    """sin saves a tensor, then `layer` is applied to it: does backward raise?"""
    hidden = leaf() * 1
    result = paddle.sin(hidden)  # saves hidden
    layer.apply(hidden)
    try:
        result.sum().backward()
    except RuntimeError as exc:
        if "modified by an inplace operation" not in str(exc):
            raise
        return "backward raises"
    return "backward runs"


with paddle.no_grad():
    leaf_under_no_grad = apply_to(Identity, leaf())

outcome = {
    "Identity, a leaf": apply_to(Identity, leaf()),
    "Identity, a leaf under no_grad": leaf_under_no_grad,
    "Identity, a tensor needing no grad": apply_to(Identity, paddle.to_tensor([1.0, 2.0])),
    "FirstOfTwo, data and a leaf": apply_to(FirstOfTwo, paddle.to_tensor([1.0, 2.0]), leaf()),
    "Identity, an intermediate tensor": apply_to(Identity, leaf() * 1),
    "NotInplace, a leaf": apply_to(NotInplace, leaf()),
    "NotInplace, an intermediate tensor": apply_to(NotInplace, leaf() * 1),
    "Identity, a tensor sin saved": backward_after(Identity),
}
for case, result in outcome.items():
    print(f"{case:36} {result}")
