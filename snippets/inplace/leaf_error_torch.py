import torch

weight = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
weight.add_(1.0)
