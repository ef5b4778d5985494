import paddle
from paddle.autograd import PyLayer, PyLayerContext


class TimesSix(PyLayer):
    """Doubles its input into a new tensor, then triples that in place, through a view."""

    @staticmethod
    def forward(ctx, x):
        doubled = x * 2
        view = doubled[:]
        view.scale_(3.0)
        return view  # nothing to mark: the write is into a tensor made here

    @staticmethod
    def backward(ctx, grad):
        return grad * 6


has_mark_dirty = hasattr(PyLayerContext, "mark_dirty")
print(f"ctx has mark_dirty: {has_mark_dirty}")

x = paddle.to_tensor([1.0, 2.0], stop_gradient=False)
TimesSix.apply(x).sum().backward()
gradient = x.grad.tolist()
print(f"view, no marking:   {gradient}")
