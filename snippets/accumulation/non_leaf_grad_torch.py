import warnings

import torch

weight = torch.tensor(1.0, requires_grad=True)
hidden = 3 * weight  # a non-leaf tensor
(hidden**2).backward()
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    default_grad = hidden.grad
print("hidden.grad:", default_grad)
warning = str(caught[0].message).split(". ")[0] if caught else ""
print("warning:", warning)

hidden = 3 * weight
hidden.retain_grad()  # ask autograd to keep this non-leaf gradient
(hidden**2).backward()
print("hidden.grad after retain_grad():", hidden.grad.item())
