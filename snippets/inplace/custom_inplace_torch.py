import torch


class Double(torch.autograd.Function):
    """Doubles its input in place."""

    @staticmethod
    def forward(ctx, x):
        x.mul_(2)
        ctx.mark_dirty(x)  # x now holds the output: autograd moves its history here
        return x

    @staticmethod
    def backward(ctx, grad):
        return grad * 2


class DoubleUnmarked(Double):
    """The same write, without mark_dirty."""

    @staticmethod
    def forward(ctx, x):
        x.mul_(2)
        return x


class DoubleNotReturned(Double):
    """mark_dirty, but the output is a new tensor."""

    @staticmethod
    def forward(ctx, x):
        x.mul_(2)
        ctx.mark_dirty(x)
        return x.clone()


def gradient(function):
    weight = torch.tensor([1.0, 2.0], requires_grad=True)
    hidden = weight.sin()
    function.apply(hidden)
    (hidden**2).sum().backward()  # the loss reads hidden, written by the function
    return [round(v, 4) for v in weight.grad.tolist()]


angles = torch.tensor([1.0, 2.0])
expected = [round(v, 4) for v in (8 * torch.sin(angles) * torch.cos(angles)).tolist()]
marked = gradient(Double)
unmarked = gradient(DoubleUnmarked)
print(f"mark_dirty:         {marked}")
print(f"no mark_dirty:      {unmarked}")
print(f"expected:           {expected}")

try:
    gradient(DoubleNotReturned)
except RuntimeError as error:
    not_returned = str(error)
    print(f"not returned:       RuntimeError: {not_returned}")

try:
    Double.apply(torch.tensor([1.0, 2.0], requires_grad=True))
except RuntimeError as error:
    leaf_marked = str(error)
    print(f"leaf, mark_dirty:   RuntimeError: {leaf_marked}")
leaf = torch.tensor([1.0, 2.0], requires_grad=True)
DoubleUnmarked.apply(leaf)  # no error: the leaf itself is doubled
leaf_unmarked = [round(v, 4) for v in leaf.tolist()]
print(f"leaf, no mark_dirty: {leaf_unmarked}")
