import torch

inputs = torch.tensor([[1.0, -2.0, 0.5], [0.3, 0.2, -1.0]])
weights = torch.tensor([1.0, 2.0, 3.0])  # the loss weighs each output differently


def train_step(zero_negatives):
    """Forward through a Linear layer whose negative outputs `zero_negatives` sets to 0."""
    torch.manual_seed(0)
    layer = torch.nn.Linear(3, 3)
    hidden = zero_negatives(layer(inputs))
    (hidden * weights).sum().backward()
    return hidden.detach(), layer.weight.grad


def through_data(hidden):
    hidden.data[hidden.data < 0] = 0  # invisible to autograd
    return hidden


def data_clamp(hidden):
    hidden.data.clamp_(min=0)
    return hidden


def under_no_grad(hidden):
    with torch.no_grad():
        hidden[hidden < 0] = 0
    return hidden


def no_grad_clamp(hidden):
    with torch.no_grad():
        hidden.clamp_(min=0)
    return hidden


def through_detach(hidden):
    hidden.detach().clamp_(min=0)
    return hidden


def recorded_clamp(hidden):
    return hidden.clamp_(min=0)  # in place, but recorded: grad mode is on


WRITES = {
    "hidden.data[hidden.data < 0] = 0": through_data,
    "hidden.data.clamp_(min=0)": data_clamp,
    "no_grad: hidden[hidden < 0] = 0": under_no_grad,
    "no_grad: hidden.clamp_(min=0)": no_grad_clamp,
    "hidden.detach().clamp_(min=0)": through_detach,
    "hidden.clamp_(min=0)": recorded_clamp,
    "hidden.clamp(min=0)": lambda hidden: hidden.clamp(min=0),
    "torch.where(hidden < 0, 0.0, hidden)": lambda hidden: torch.where(hidden < 0, 0.0, hidden),
    "hidden.masked_fill(hidden < 0, 0.0)": lambda hidden: hidden.masked_fill(hidden < 0, 0.0),
}
expected_values, expected_grad = train_step(lambda hidden: torch.relu(hidden))
_, grad_without_write = train_step(lambda hidden: hidden)
outcome = {}
for write, zero_negatives in WRITES.items():
    values, grad = train_step(zero_negatives)
    if not torch.equal(values, expected_values):
        outcome[write] = "values not zeroed"
    elif torch.allclose(grad, expected_grad):
        outcome[write] = "correct gradient"
    elif torch.allclose(grad, grad_without_write):
        outcome[write] = "gradient leaves the write out, no error"
    else:
        outcome[write] = "another wrong gradient"
for write, result in outcome.items():
    print(f"{write:38} {result}")
