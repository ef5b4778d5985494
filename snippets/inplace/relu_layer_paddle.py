import inspect

import paddle
import paddle.nn.functional as F
from paddle import nn

paddle.seed(0)
batch = paddle.rand([1024, 1024])  # every activation below is 1024 x 1024 float32: 4 MiB
linear = nn.Linear(1024, 1024)
bare = nn.Linear(1024, 1024, bias_attr=False)  # a Linear without bias: one matmul


# nn.ReLU has no inplace argument: call F.relu_ in your own forward instead.
def block(x, layer):
    return F.relu(layer(x))


def block_in_place(x, layer):
    return F.relu_(layer(x))


block(batch, linear).sum().backward()
reference = linear.weight.grad.clone()
linear.clear_gradients()
block_in_place(batch, linear).sum().backward()

relu_parameters = list(inspect.signature(nn.ReLU).parameters)
same_gradient = paddle.allclose(linear.weight.grad, reference).item()
print(f"nn.ReLU parameters: {relu_parameters}")
print(f"same gradient: {same_gradient}")
