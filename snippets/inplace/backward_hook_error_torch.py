import torch
from torch import nn

model = nn.Sequential(nn.Linear(4, 4), nn.ReLU(inplace=True))
# gradient logging, say
model[0].register_full_backward_hook(lambda layer, grad_input, grad_output: None)
model(torch.randn(2, 4))
