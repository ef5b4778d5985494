import torch
from torch import nn


def make_model():
    torch.manual_seed(0)
    return nn.Sequential(
        nn.Linear(8, 8), nn.Tanh(), nn.Dropout(0.1), nn.Linear(8, 8), nn.ReLU(), nn.Linear(8, 1)
    )


def weight_gradient(model):
    torch.manual_seed(1)  # the same input and dropout mask for both models
    model(torch.randn(4, 8)).sum().backward()
    return model[0].weight.grad


expected = weight_gradient(make_model())  # every layer out of place
model = make_model()
SAVES_OUTPUT = (nn.Tanh, nn.Sigmoid, nn.Softmax, nn.ReLU)  # their backward needs their output
switched = []
for index in range(1, len(model)):
    # Work in place only where the layer before kept nothing of what is overwritten.
    if hasattr(model[index], "inplace") and not isinstance(model[index - 1], SAVES_OUTPUT):
        model[index].inplace = True
        switched.append(str(index))
same_gradient = torch.allclose(weight_gradient(model), expected)
print(f"switched to in place: {switched}, same gradient as out of place: {same_gradient}")
