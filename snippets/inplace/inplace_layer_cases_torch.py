import torch
from torch import nn

# Every torch.nn layer with an `inplace` argument in PyTorch 2.13.
IN_PLACE_CAPABLE = [
    "ReLU", "ReLU6", "LeakyReLU", "ELU", "CELU", "SELU", "SiLU", "Mish", "Hardtanh",
    "Hardsigmoid", "Hardswish", "RReLU", "Threshold", "Dropout", "Dropout1d", "Dropout2d",
    "Dropout3d", "AlphaDropout", "FeatureAlphaDropout",
]  # fmt: skip
# The channel dropouts expect (batch, channels, ...) inputs; the others get (6, 4).
INPUT_SHAPES = {"Dropout1d": (2, 3, 4), "Dropout2d": (2, 3, 5, 4), "Dropout3d": (2, 3, 2, 5, 4)}
PREDECESSORS = {
    "Linear": lambda: nn.Linear(4, 4),
    "BatchNorm1d": lambda: nn.BatchNorm1d(4),
    "LayerNorm": lambda: nn.LayerNorm(4),
    "GELU": nn.GELU,
    "Tanh": nn.Tanh,
    "Sigmoid": nn.Sigmoid,
    "Softmax": lambda: nn.Softmax(dim=-1),
    "ReLU": nn.ReLU,
}


def make(name, inplace):
    if name == "Threshold":
        return nn.Threshold(0.1, 0.0, inplace=inplace)
    return getattr(nn, name)(inplace=inplace)


def gradient(predecessor, name, inplace):
    """The first weight's gradient through Linear, predecessor, layer, Linear; or the error."""
    torch.manual_seed(0)
    model = nn.Sequential(
        nn.Linear(4, 4), PREDECESSORS[predecessor](), make(name, inplace), nn.Linear(4, 1)
    )
    inputs = torch.randn(INPUT_SHAPES.get(name, (6, 4)))
    torch.manual_seed(1)  # the same random masks and slopes in place and out of place
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
    return "correct gradient" if torch.allclose(in_place, expected) else "wrong gradient"


def writes_in_place(name):
    """Does the layer, with inplace=True, return its input's storage with a new version?"""
    inputs = torch.randn(INPUT_SHAPES.get(name, (6, 4)))
    output = make(name, True)(inputs)
    return output.data_ptr() == inputs.data_ptr() and inputs._version > 0


in_place = {name: writes_in_place(name) for name in IN_PLACE_CAPABLE}
after_tanh = {name: outcome("Tanh", name) for name in IN_PLACE_CAPABLE}
after_linear = {name: outcome("Linear", name) for name in IN_PLACE_CAPABLE}
relu_after = {predecessor: outcome(predecessor, "ReLU") for predecessor in PREDECESSORS}
print("writes in place:", in_place)
print("in-place layer after Tanh:", after_tanh)
print("in-place layer after Linear:", after_linear)
print("ReLU(inplace=True) after:", relu_after)
