import paddle
import paddle.nn.functional as F
from paddle import nn


class Block(nn.Layer):
    def __init__(self, inplace):
        super().__init__()
        self.fc1, self.fc2 = nn.Linear(4, 4), nn.Linear(4, 1)
        self.relu = F.relu_ if inplace else F.relu

    def forward(self, x):
        return self.fc2(self.relu(self.fc1(x)))


layer_hooks = [name for name in dir(nn.Layer) if name.startswith("register") and "hook" in name]
print(f"hooks of paddle.nn.Layer: {layer_hooks}")


def train_step(inplace):
    """A tensor hook on fc1's output, installed by a forward post hook, then F.relu_."""
    paddle.seed(0)
    model = Block(inplace)
    calls = []

    def hook_output(layer, inputs, output):
        output.register_hook(lambda grad: calls.append(1))

    model.fc1.register_forward_post_hook(hook_output)
    model(paddle.randn([3, 4])).sum().backward()
    return f"runs; hook called {len(calls)} time(s)"


outcome = {
    "tensor hook on fc1's output, F.relu_": train_step(True),
    "tensor hook on fc1's output, F.relu": train_step(False),
}
for setup, result in outcome.items():
    print(f"{setup:52} {result}")
