import re

import torch
from torch import nn

# The parts of the message: shape, the op that produced the tensor (if any), the two versions.
PARTS = re.compile(
    r"\[\S+ \[(?P<shape>[\d, ]*)\]\](?:, which is output \d+ of (?P<node>\w+),)? "
    r"is at version (?P<version>\d+); expected version (?P<expected>\d+)"
)


def read_message(culprit):
    """Run `culprit`, which ends with a backward that fails; the parts of its message."""
    torch.manual_seed(0)
    try:
        culprit()
    except RuntimeError as error:
        parts = PARTS.search(str(error)).groupdict()
        return {**parts, "node": parts["node"] or "not named"}
    return "no error"


def relu_on_saved_input():
    linear, shortcut = nn.Linear(4, 4), nn.Linear(4, 4)
    hidden = linear(torch.randn(2, 4))
    skip = shortcut(hidden)  # saves hidden
    (skip + nn.ReLU(inplace=True)(hidden)).sum().backward()


def relu_after_tanh():
    hidden = torch.tanh(nn.Linear(4, 4)(torch.randn(2, 4)))  # tanh saves its output
    nn.ReLU(inplace=True)(hidden).sum().backward()


def step_before_backward():
    discriminator = nn.Linear(4, 3)
    optimizer = torch.optim.SGD(discriminator.parameters(), lr=0.1)
    fake = nn.Linear(2, 4)(torch.randn(5, 2))  # requires grad: the weight is saved, transposed
    first, second = discriminator(fake).sum(), discriminator(fake).mean()
    first.backward(retain_graph=True)
    optimizer.step()
    second.backward()


def adamw_step_before_backward():
    discriminator = nn.Linear(4, 3)
    optimizer = torch.optim.AdamW(discriminator.parameters(), lr=0.1)
    fake = nn.Linear(2, 4)(torch.randn(5, 2))
    first, second = discriminator(fake).sum(), discriminator(fake).mean()
    first.backward(retain_graph=True)
    optimizer.step()  # weight decay, then the update: two writes
    second.backward()


def write_into_other_row():
    weight = torch.randn(4, requires_grad=True)
    buffer = torch.zeros(3, 4)
    buffer[0] = weight * 2
    product = (buffer[0] * weight).sum()  # saves the row buffer[0]
    buffer[1] = 1.0  # another row of the same storage
    product.backward()


def plus_equals_twice():
    weight = torch.randn(4, requires_grad=True)
    hidden = weight * 1
    product = (hidden * weight).sum()  # saves hidden
    hidden += 1
    hidden += 1
    product.backward()


def parameter_under_no_grad():
    norm = nn.LayerNorm(4)
    output = norm(nn.Linear(4, 4)(torch.randn(2, 4))).sum()  # saves norm.weight itself
    with torch.no_grad():
        norm.weight.mul_(0.5)  # a weight update by hand
    output.backward()


CULPRITS = [
    relu_on_saved_input,
    relu_after_tanh,
    step_before_backward,
    adamw_step_before_backward,
    write_into_other_row,
    plus_equals_twice,
    parameter_under_no_grad,
]
messages = {culprit.__name__: read_message(culprit) for culprit in CULPRITS}
for culprit, parts in messages.items():
    print(f"{culprit:28} {parts}")
