import paddle
import paddle.nn.functional as F
from paddle import nn


class Call(nn.Layer):
    """A layer that applies `function` to its input, as a model's forward would."""

    def __init__(self, function):
        super().__init__()
        self.function = function

    def forward(self, inputs):
        return self.function(inputs)


# Paddle's in-place activations (paddle.nn.functional, Paddle 3.3) and its two layers with an
# `inplace` argument, each with its out-of-place counterpart.
IN_PLACE_CAPABLE = {
    "F.relu_": (lambda: Call(F.relu_), lambda: Call(F.relu)),
    "F.leaky_relu_": (lambda: Call(F.leaky_relu_), lambda: Call(F.leaky_relu)),
    "F.elu_": (lambda: Call(F.elu_), lambda: Call(F.elu)),
    "F.hardtanh_": (lambda: Call(F.hardtanh_), lambda: Call(F.hardtanh)),
    "F.thresholded_relu_": (lambda: Call(F.thresholded_relu_), lambda: Call(F.thresholded_relu)),
    "F.tanh_": (lambda: Call(F.tanh_), lambda: Call(F.tanh)),
    "F.softmax_": (lambda: Call(F.softmax_), lambda: Call(F.softmax)),
    "nn.Silu(inplace=True)": (lambda: nn.Silu(inplace=True), lambda: nn.Silu()),
    "nn.Dropout(inplace=True)": (lambda: nn.Dropout(0.5, inplace=True), lambda: nn.Dropout(0.5)),
}
PREDECESSORS = {
    "Linear": lambda: nn.Linear(4, 4),
    "BatchNorm1D": lambda: nn.BatchNorm1D(4),
    "LayerNorm": lambda: nn.LayerNorm(4),
    "GELU": nn.GELU,
    "Tanh": nn.Tanh,
    "Sigmoid": nn.Sigmoid,
    "Softmax": nn.Softmax,
    "ReLU": nn.ReLU,
}


def gradient(predecessor, name, inplace):
    """The first weight's gradient through Linear, predecessor, layer, Linear; or the error."""
    paddle.seed(0)
    layer = IN_PLACE_CAPABLE[name][0 if inplace else 1]()
    model = nn.Sequential(nn.Linear(4, 4), PREDECESSORS[predecessor](), layer, nn.Linear(4, 1))
    inputs = paddle.randn([6, 4])
    paddle.seed(1)  # the same dropout mask in place and out of place
    try:
        model(inputs).sum().backward()
    except RuntimeError as error:
        if "modified by an inplace operation" not in str(error):
            raise
        return "error"
    return model[0].weight.grad


def outcome(predecessor, name):
    """Compare the in-place layer after `predecessor` with the same layer out of place."""
    in_place = gradient(predecessor, name, inplace=True)
    if isinstance(in_place, str):
        return in_place
    expected = gradient(predecessor, name, inplace=False)
    return "correct gradient" if paddle.allclose(in_place, expected).item() else "wrong gradient"


def writes_in_place(name):
    """Does the in-place form return its input's storage with a new version?"""
    inputs = paddle.randn([6, 4])
    output = IN_PLACE_CAPABLE[name][0]()(inputs)
    return output.data_ptr() == inputs.data_ptr() and inputs.inplace_version > 0


in_place = {name: writes_in_place(name) for name in IN_PLACE_CAPABLE}
after_tanh = {name: outcome("Tanh", name) for name in IN_PLACE_CAPABLE}
after_linear = {name: outcome("Linear", name) for name in IN_PLACE_CAPABLE}
relu_after = {predecessor: outcome(predecessor, "F.relu_") for predecessor in PREDECESSORS}
print("writes in place:", in_place)
print("in-place layer after Tanh:", after_tanh)
print("in-place layer after Linear:", after_linear)
print("F.relu_ after:", relu_after)
