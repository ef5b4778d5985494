import warnings

import torch
from torch.utils.checkpoint import checkpoint

torch.manual_seed(0)
first_block = torch.nn.Sequential(torch.nn.Linear(4, 4), torch.nn.Tanh())
head = torch.nn.Linear(4, 1)
batch = torch.randn(8, 4)  # input data: needs no gradient


def first_block_grad(**use_reentrant):
    first_block.zero_grad()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        hidden = checkpoint(first_block, batch, **use_reentrant)
        head(hidden).square().mean().backward()
    grad = first_block[0].weight.grad
    messages = [str(warning.message).split(". ")[0] for warning in caught]
    called_with = ", ".join(f"{key}={value}" for key, value in use_reentrant.items()) or "default"
    print(f"{called_with:20} first block's weight.grad is {'None' if grad is None else 'set'}")
    print(f"    warnings: {messages}")
    return grad, messages


default_grad, default_warnings = first_block_grad()
reentrant_grad, reentrant_warnings = first_block_grad(use_reentrant=True)
non_reentrant_grad, non_reentrant_warnings = first_block_grad(use_reentrant=False)
