from paddle import nn

model = nn.Sequential(nn.Linear(4, 4), nn.ReLU())
# as in PyTorch
model[0].register_full_backward_hook(lambda layer, grad_input, grad_output: None)
