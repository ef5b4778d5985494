import torch
from torch import nn

OPTIMIZERS = {
    "SGD": lambda params: torch.optim.SGD(params, lr=0.1),
    "SGD(momentum=0.9)": lambda params: torch.optim.SGD(params, lr=0.1, momentum=0.9),
    "Adam": lambda params: torch.optim.Adam(params, lr=0.1),
    "AdamW": lambda params: torch.optim.AdamW(params, lr=0.1),
    "AdamW(weight_decay=0)": lambda params: torch.optim.AdamW(params, lr=0.1, weight_decay=0),
    "AdamW(foreach=True)": lambda params: torch.optim.AdamW(params, lr=0.1, foreach=True),
    "SGD(fused=True)": lambda params: torch.optim.SGD(params, lr=0.1, fused=True),
    "Adam(fused=True)": lambda params: torch.optim.Adam(params, lr=0.1, fused=True),
    "AdamW(fused=True)": lambda params: torch.optim.AdamW(params, lr=0.1, fused=True),
}


def step_between(make_optimizer):
    """Two losses from one forward, a step between their backwards: writes, and the outcome."""
    torch.manual_seed(0)
    discriminator = nn.Linear(4, 3)
    optimizer = make_optimizer(discriminator.parameters())
    fake = torch.randn(5, 4, requires_grad=True)  # requires grad: the weight is saved
    first, second = discriminator(fake).sum(), discriminator(fake).mean()
    first.backward(retain_graph=True)
    used_weight = discriminator.weight.detach().clone()  # the weight both forwards used
    fake.grad = None
    before = discriminator.weight._version
    optimizer.step()
    writes = discriminator.weight._version - before
    try:
        second.backward()
    except RuntimeError as error:
        if "modified by an inplace operation" not in str(error):
            raise
        return writes, "error"
    expected = (used_weight.sum(0) / 15).expand(5, 4)  # second is the mean of 5 x 3 outputs
    correct = torch.allclose(fake.grad, expected)
    return writes, "correct gradient" if correct else "wrong gradient, no error"


outcome = {name: step_between(make) for name, make in OPTIMIZERS.items()}
for name, (writes, result) in outcome.items():
    print(f"{name:24} writes per step: {writes}   step before backward: {result}")
