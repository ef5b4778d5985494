import torch

weight = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
x = weight * 1  # an intermediate result, not a leaf
y = x * x  # backward of x * x needs x
x.mul_(2)  # the value backward needs is overwritten
y.sum().backward()
