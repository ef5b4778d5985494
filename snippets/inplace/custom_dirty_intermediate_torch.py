import warnings

import torch


class TimesSix(torch.autograd.Function):
    """Doubles its input into a new tensor, then triples that in place, through a view."""

    @staticmethod
    def forward(ctx, x):
        doubled = x * 2
        view = doubled[:]
        view.mul_(3)
        ctx.mark_dirty(view)  # a view of a tensor made here, not an input
        return view

    @staticmethod
    def backward(ctx, grad):
        return grad * 6


class TimesSixNoView(TimesSix):
    """The same write, into the new tensor itself."""

    @staticmethod
    def forward(ctx, x):
        doubled = x * 2
        doubled.mul_(3)
        ctx.mark_dirty(doubled)  # not an input either
        return doubled


class TimesSixUnmarked(TimesSix):
    """The same write through the view, without mark_dirty."""

    @staticmethod
    def forward(ctx, x):
        doubled = x * 2
        view = doubled[:]
        view.mul_(3)
        return view


def gradient(function):
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    function.apply(x).sum().backward()
    return x.grad.tolist()


try:
    gradient(TimesSix)
except RuntimeError as error:
    view_error = str(error)
    print(f"view, marked:     RuntimeError: {view_error}")

with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    no_view = gradient(TimesSixNoView)
# the message without "(Triggered internally at <C++ file>:<line>)", which moves with each release
no_view_warnings = [
    f"{w.category.__name__}: {str(w.message).split(' (Triggered')[0]}" for w in caught
]
print(f"no view, marked:  {no_view}")
for warning in no_view_warnings:
    print(f"                  {warning}")

unmarked = gradient(TimesSixUnmarked)
print(f"view, unmarked:   {unmarked}")
