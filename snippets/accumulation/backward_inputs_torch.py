import torch
from torch import nn

torch.manual_seed(0)
generator = nn.Linear(2, 4)
discriminator = nn.Linear(4, 1)
fakes = generator(torch.randn(8, 2))
fakes.retain_grad()  # a tensor on the path that keeps its gradient
g_loss = discriminator(fakes).mean()
g_loss.backward(inputs=list(generator.parameters()))  # fill only the generator's .grad
print(f"generator.weight.grad filled: {generator.weight.grad is not None}")
print(f"discriminator.weight.grad: {discriminator.weight.grad}")
print(f"fakes.grad filled: {fakes.grad is not None}")
