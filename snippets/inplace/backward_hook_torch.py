import torch
from torch import nn


def train_step(hook, inplace):
    """One backward through Linear, Linear, ReLU, Linear with a hook installed by `hook`."""
    torch.manual_seed(0)
    model = nn.Sequential(
        nn.Linear(4, 4), nn.Linear(4, 4), nn.ReLU(inplace=inplace), nn.Linear(4, 1)
    )
    calls = []
    hook(model, calls)
    try:
        output = model(torch.randn(3, 4))
    except RuntimeError as error:
        return f"RuntimeError in the forward: {str(error).split('. ')[0]}"
    output.sum().backward()
    return f"runs; hook called {len(calls)} time(s)"


def on_linear(model, calls):  # e.g. to log or clip the gradients of a layer
    model[1].register_full_backward_hook(lambda module, grad_in, grad_out: calls.append(1))


def on_relu(model, calls):
    model[2].register_full_backward_hook(lambda module, grad_in, grad_out: calls.append(1))


def on_output_tensor(model, calls):
    def hook_output(module, inputs, output):
        output.register_hook(lambda grad: calls.append(1))

    model[1].register_forward_hook(hook_output)


outcome = {
    "full backward hook on Linear, ReLU(inplace=True)": train_step(on_linear, True),
    "full backward hook on ReLU(inplace=True)": train_step(on_relu, True),
    "full backward hook on Linear, ReLU()": train_step(on_linear, False),
    "tensor hook on Linear's output, ReLU(inplace=True)": train_step(on_output_tensor, True),
}
for setup, result in outcome.items():
    print(f"{setup:52} {result}")
