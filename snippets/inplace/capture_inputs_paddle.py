import paddle
from paddle.autograd import PyLayer
from paddle.jit.sot.utils import min_graph_size_guard


class Double(PyLayer):
    """Doubles its input in place and returns it (see the custom-functions page)."""

    @staticmethod
    def forward(ctx, x):
        x.scale_(2.0)
        return x

    @staticmethod
    def backward(ctx, grad):
        return grad * 2


class DoubleOutOfPlace(PyLayer):
    """The same operation, out of place."""

    @staticmethod
    def forward(ctx, x):
        return x * 2.0

    @staticmethod
    def backward(ctx, grad):
        return grad * 2


def normalise(batch_norm, inputs):  # BatchNorm updates its running mean in place
    return batch_norm(inputs)


def sgd_step(param, grad):  # an optimiser-like step under no_grad, inside the captured function
    with paddle.no_grad():
        param.subtract_(0.1 * grad)


def scale(tensor):
    return tensor * 2


def double_inside(weight):  # the PyLayer's result is not used: hidden was written
    hidden = weight.sin()
    Double.apply(hidden)
    return (hidden**2).sum()


def double_assigned(weight):  # the same, with the result assigned
    hidden = weight.sin()
    hidden = Double.apply(hidden)
    return (hidden**2).sum()


def double_out_of_place(weight):
    hidden = weight.sin()
    hidden = DoubleOutOfPlace.apply(hidden)
    return (hidden**2).sum()


def run(wrap):
    batch_norm = paddle.nn.BatchNorm1D(2)
    wrap(normalise)(batch_norm, paddle.to_tensor([[1.0, 2.0], [3.0, 6.0]]))
    param = paddle.to_tensor([1.0, 2.0], stop_gradient=False)
    wrap(sgd_step)(param, 2 * param.detach())  # the gradient of (param * param).sum()
    view = paddle.zeros([4])[1:3]
    view.add_(paddle.ones([2]))  # an argument that is a view, written in place before the call
    scaled = wrap(scale)(view)
    gradients = []
    for function in (double_inside, double_assigned, double_out_of_place):
        weight = paddle.to_tensor([1.0, 2.0], stop_gradient=False)
        wrap(function)(weight).backward()
        gradients.append([round(v, 4) for v in weight.grad.tolist()])
    return {
        "running mean": [round(v, 4) for v in batch_norm._mean.tolist()],
        "param after the step": [round(v, 4) for v in param.tolist()],
        "view argument, scaled": scaled.tolist(),
        "PyLayer, result unused": gradients[0],
        "PyLayer, result assigned": gradients[1],
        "PyLayer out of place": gradients[2],
    }


def captured(function):
    """The default mode (SOT) with every graph captured. By default it runs a graph of fewer
    than 10 operations (MIN_GRAPH_SIZE) in dynamic mode, as it would these small functions."""
    static = paddle.jit.to_static(function)

    def call(*args):
        with min_graph_size_guard(0):
            return static(*args)

    return call


eager = run(lambda function: function)
modes = {
    "to_static": run(captured),
    "full_graph=True": run(lambda function: paddle.jit.to_static(function, full_graph=True)),
}
for case in eager:
    print(f"{case}: eager {eager[case]}")
    print("   " + ", ".join(f"{mode} {results[case]}" for mode, results in modes.items()))
different = {mode: [c for c in eager if results[c] != eager[c]] for mode, results in modes.items()}
print("cases that differ from eager:", different)
