import inspect

import torch
from torch import nn

torch.manual_seed(0)
batch = torch.rand(1024, 1024)  # every activation below is 1024 x 1024 float32: 4 MiB
linear = nn.Linear(1024, 1024)
block = nn.Sequential(linear, nn.ReLU())
block_in_place = nn.Sequential(linear, nn.ReLU(inplace=True))  # the same Linear, shared

block(batch).sum().backward()
reference = linear.weight.grad.clone()
block.zero_grad()
block_in_place(batch).sum().backward()

relu_parameters = list(inspect.signature(nn.ReLU).parameters)
same_gradient = torch.allclose(linear.weight.grad, reference)
print(f"nn.ReLU parameters: {relu_parameters}")
print(f"same gradient: {same_gradient}")
