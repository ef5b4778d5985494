import torch


class Identity(torch.autograd.Function):
    """A custom operation whose forward returns its input tensor itself."""

    @staticmethod
    def forward(ctx, x):
        return x

    @staticmethod
    def backward(ctx, grad):
        return grad


class MarkedDirty(torch.autograd.Function):
    """The same, with the input marked as written in place."""

    @staticmethod
    def forward(ctx, x):
        ctx.mark_dirty(x)
        return x

    @staticmethod
    def backward(ctx, grad):
        return grad


def apply_to(function, tensor):
    """Apply `function` to `tensor`; report the error and the version counter's step."""
    before = tensor._version
    try:
        function.apply(tensor)
        error = "no error"
    except RuntimeError as exc:
        if "a leaf Variable that requires grad has been used in an in-place operation" not in str(
            exc
        ):
            raise
        error = "RuntimeError"
    return {"error": error, "version step": tensor._version - before}


def leaf():
    return torch.tensor([1.0, 2.0], requires_grad=True)


def backward_after(layer):
    """sin saves a tensor, then `layer` is applied to it: does backward raise?"""
    hidden = leaf() * 1
    result = torch.sin(hidden)  # saves hidden
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
    "MarkedDirty, a leaf": apply_to(MarkedDirty, leaf()),
    "MarkedDirty, an intermediate tensor": apply_to(MarkedDirty, leaf() * 1),
    "Identity, a tensor sin saved": backward_after(Identity),
}
for case, result in outcome.items():
    print(f"{case:36} {result}")
