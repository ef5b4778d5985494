import torch

x = torch.ones(3, requires_grad=True)
hidden = x * 2
hidden.retain_grad()
hidden.mul_(3)  # an in-place write after retain_grad()
(hidden * hidden).sum().backward()
# d(loss)/d(hidden) is 2 * hidden: 12 for the values after the write, 36 for those before it.
print(f"hidden.grad: {hidden.grad.tolist()}, x.grad: {x.grad.tolist()}")
