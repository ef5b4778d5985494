import paddle
from paddle.autograd import PyLayer


class Double(PyLayer):
    """Doubles its input in place."""

    @staticmethod
    def forward(ctx, x):
        x.scale_(2.0)
        return x  # an input returned as output: Paddle records the write in place

    @staticmethod
    def backward(ctx, grad):
        return grad * 2


class DoubleNotReturned(Double):
    """The same write, but the output is a new tensor."""

    @staticmethod
    def forward(ctx, x):
        x.scale_(2.0)
        return x.clone()


def gradient(function):
    weight = paddle.to_tensor([1.0, 2.0], stop_gradient=False)
    hidden = weight.sin()
    function.apply(hidden)
    (hidden**2).sum().backward()  # the loss reads hidden, written by the function
    return [round(v, 4) for v in weight.grad.tolist()]


angles = paddle.to_tensor([1.0, 2.0])
expected = [round(v, 4) for v in (8 * paddle.sin(angles) * paddle.cos(angles)).tolist()]
returned = gradient(Double)
not_returned = gradient(DoubleNotReturned)
print(f"input returned:      {returned}")
print(f"input not returned:  {not_returned}")
print(f"expected:            {expected}")

try:
    Double.apply(paddle.to_tensor([1.0, 2.0], stop_gradient=False))
except ValueError as error:
    leaf_returned = str(error).strip().splitlines()[0]
    print(f"leaf, returned:      ValueError: {leaf_returned}")
leaf = paddle.to_tensor([1.0, 2.0], stop_gradient=False)
DoubleNotReturned.apply(leaf)  # no error: the leaf itself is doubled
leaf_not_returned = [round(v, 4) for v in leaf.tolist()]
print(f"leaf, not returned:  {leaf_not_returned}")
