import warnings

import torch
from torch import nn


def whole_message(culprit):
    """Run `culprit` under anomaly mode: the backward node that failed, and the whole message."""
    torch.manual_seed(0)
    with warnings.catch_warnings(record=True) as caught, torch.autograd.detect_anomaly():
        warnings.simplefilter("always")
        try:
            culprit()
        except RuntimeError as error:
            warned = [str(w.message) for w in caught]
            failed = [w.split(".")[0] for w in warned if w.startswith("Error detected")]
            return f"{failed[0]}\n{error}"
    return "no error"


def inplace_after_relu():  # an in-place layer writes the output that ReLU saved
    model = nn.Sequential(nn.Linear(4, 4), nn.ReLU(), nn.Dropout(0.5, inplace=True))
    model(torch.randn(2, 4)).sum().backward()


def step_before_backward():  # an optimiser step between a forward and its backward
    layer = nn.Linear(4, 3)
    optimizer = torch.optim.SGD(layer.parameters(), lr=0.1)
    output = layer(torch.randn(5, 4, requires_grad=True))  # saves the weight, transposed
    output.sum().backward(retain_graph=True)
    optimizer.step()
    output.mean().backward()


def write_into_a_slice():  # item assignment into a tensor that an op saved whole
    weight = torch.randn(4, requires_grad=True)
    hidden = weight * 2
    product = (hidden * weight).sum()  # saves hidden
    hidden[0] = 0.0
    product.backward()


def plus_equals():  # += on a tensor that an op saved
    weight = torch.randn(4, requires_grad=True)
    hidden = weight * 2
    product = (hidden * weight).sum()  # saves hidden
    hidden += 1
    product.backward()


CULPRITS = [inplace_after_relu, step_before_backward, write_into_a_slice, plus_equals]
messages = {culprit.__name__: whole_message(culprit) for culprit in CULPRITS}
for culprit, message in messages.items():
    print(f"{culprit}:\n{message}\n")

# A view's backward node changes when its base is written: the transposed weight that a
# Linear layer saves is made by t() until an optimiser step writes the weight.
layer = nn.Linear(4, 3)
saved = layer.weight.t()
made_by = type(saved.grad_fn).__name__
with torch.no_grad():
    layer.weight.add_(1.0)  # what optimizer.step() does
print(f"weight.t(): {made_by}; after a write into the weight: {type(saved.grad_fn).__name__}")
