import torch

inputs = torch.tensor([[1.0, -2.0, 0.5], [0.3, 0.2, -1.0]])
weights = torch.tensor([1.0, 2.0, 3.0])  # the loss weighs each output differently


def linear_loss(hidden):
    return (hidden * weights).sum()


def exp_loss(hidden):  # not linear in hidden: exp saves the values after the write
    return hidden.exp().sum()


def train_step(zero_negatives, loss=linear_loss):
    """Forward through a Linear layer whose negative outputs `zero_negatives` sets to 0."""
    torch.manual_seed(0)
    layer = torch.nn.Linear(3, 3)
    hidden = zero_negatives(layer(inputs))
    loss(hidden).backward()
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


def judge(zero_negatives, loss=linear_loss):
    """Compare with the gradient of relu and with the gradient of the layer without the write."""
    values, grad = train_step(zero_negatives, loss)
    expected_values, expected_grad = train_step(torch.relu, loss)
    _, grad_without_write = train_step(lambda hidden: hidden, loss)
    if not torch.equal(values, expected_values):
        return "values not zeroed"
    if torch.allclose(grad, expected_grad):
        return "correct gradient"
    if torch.allclose(grad, grad_without_write):
        return "gradient leaves the write out, no error"
    return "another wrong gradient"


outcome = {write: judge(zero_negatives) for write, zero_negatives in WRITES.items()}
outcome["no_grad: hidden.clamp_(min=0), exp loss"] = judge(no_grad_clamp, exp_loss)
for write, result in outcome.items():
    print(f"{write:38} {result}")
