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


def apply_to(layer, tensor):
    """Apply `layer` to `tensor`; report the error and the version counter's step."""
    before = tensor.inplace_version
    try:
        layer.apply(tensor)
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


outcome = {
    "Identity, a leaf": apply_to(Identity, leaf()),
    "Identity, an intermediate tensor": apply_to(Identity, leaf() * 1),
    "NotInplace, a leaf": apply_to(NotInplace, leaf()),
    "NotInplace, an intermediate tensor": apply_to(NotInplace, leaf() * 1),
    "Identity, a tensor sin saved": backward_after(Identity),
}
for case, result in outcome.items():
    print(f"{case:36} {result}")
