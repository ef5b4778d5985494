import torch
import torch.nn.functional as F
from torch import nn

IMPLEMENTATIONS = {
    "for-loop": {"foreach": False},
    "foreach": {"foreach": True},
    "fused": {"fused": True},
}


def bce(logits, target):
    return F.binary_cross_entropy_with_logits(logits, torch.full_like(logits, target))


def step_between_backwards(implementation, step=True):
    """The step of the previous section, with the discriminator's Adam in one implementation."""
    torch.manual_seed(0)
    generator = nn.Linear(2, 4)
    discriminator = nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 1))
    opt_d = torch.optim.Adam(discriminator.parameters(), lr=0.01, **implementation)
    noise, real = torch.randn(8, 2), torch.randn(8, 4) + 2.0
    fake_logits = discriminator(generator(noise))
    d_loss = bce(discriminator(real), 1.0) + bce(fake_logits, 0.0)
    g_loss = bce(fake_logits, 1.0)
    expected = torch.autograd.grad(g_loss, generator.weight, retain_graph=True)[0]
    d_loss.backward(retain_graph=True)
    version = discriminator[2].weight._version
    if step:
        opt_d.step()
    result = {"version counter incremented": discriminator[2].weight._version > version}
    generator.zero_grad()  # drop d_loss's share: what still differs is the step's own
    try:
        g_loss.backward()
    except RuntimeError as error:
        if "modified by an inplace operation" not in str(error):
            raise
        return {**result, "raised": True, "gradient off by": None}
    difference = (generator.weight.grad - expected).abs().max().item()
    return {**result, "raised": False, "gradient off by": round(difference, 4)}


# without the step: the comparison itself
outcome = {"no step": step_between_backwards({}, step=False)}
outcome |= {name: step_between_backwards(kwargs) for name, kwargs in IMPLEMENTATIONS.items()}
for name, result in outcome.items():
    print(f"{name:9} {result}")
