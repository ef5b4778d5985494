import warnings

import torch
from torch import nn

torch.manual_seed(0)
model = nn.Sequential(
    nn.Linear(8, 8), nn.Tanh(), nn.Dropout(0.1, inplace=True), nn.Linear(8, 1)
)  # the culprit of the in-place layers page
# Anomaly mode records a traceback for every forward operation and, when backward fails,
# reports the one of the failing operation as a warning.
with warnings.catch_warnings(record=True) as caught, torch.autograd.detect_anomaly():
    warnings.simplefilter("always")
    try:
        model(torch.randn(4, 8)).sum().backward()
    except RuntimeError as error:
        message = str(error)
forward_trace = next(
    str(w.message) for w in caught if "Traceback of forward call" in str(w.message)
)
print(message)
print(forward_trace)
