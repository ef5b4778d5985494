import inspect

import paddle
from paddle import nn

paddle.seed(0)
generator = nn.Linear(2, 4)
discriminator = nn.Linear(4, 1)
fakes = generator(paddle.randn([8, 2]))
fakes.retain_grads()  # a tensor on the path that keeps its gradient
g_loss = discriminator(fakes).mean()
print(f"Tensor.backward parameters: {list(inspect.signature(paddle.Tensor.backward).parameters)}")
# paddle.grad returns the gradients of the inputs named, and fills no parameter's .grad.
generator_grads = paddle.grad(g_loss, generator.parameters())
print(f"gradients returned: {len(generator_grads)}")
print(f"generator.weight.grad: {generator.weight.grad}")
print(f"discriminator.weight.grad: {discriminator.weight.grad}")
print(f"fakes.grad filled: {fakes.grad is not None}")
