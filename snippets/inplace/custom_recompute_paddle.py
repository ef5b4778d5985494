import paddle
from paddle.autograd import PyLayer

paddle.seed(0)
block = paddle.nn.Linear(2, 2)
head = paddle.nn.Linear(2, 1)
calls = {"backward": 0}


class Recompute(PyLayer):
    """Runs `block` without keeping its activations, and runs it again in backward."""

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return block(x)  # block's weight is read here, but it is not an input

    @staticmethod
    def backward(ctx, grad):
        calls["backward"] += 1
        (x,) = ctx.saved_tensor()
        x = x.detach()
        x.stop_gradient = False
        with paddle.enable_grad():
            paddle.autograd.backward(block(x), grad)  # block's weight gets its gradient here
        return x.grad


def rounded(tensor):
    return [[round(v, 4) for v in row] for row in tensor.tolist()]


data = paddle.to_tensor([[1.0, 2.0]])  # as a data loader gives it: stop_gradient=True
output = Recompute.apply(data)
head(output).sum().backward()
output_needs_grad = not output.stop_gradient
block_grad = block.weight.grad
print(f"output needs a gradient: {output_needs_grad}")
print(f"backward calls:          {calls['backward']}")
print(f"block.weight.grad:       {block_grad}")
print(f"head.weight.grad:        {rounded(head.weight.grad)}")

alone_error = "no error"
try:
    Recompute.apply(data).sum().backward()  # a loss from the function alone
except RuntimeError as error:
    alone_error = f"RuntimeError: {error}"
skipped_calls = calls["backward"]
print(f"loss from it alone:      {alone_error}")
print(f"backward calls:          {skipped_calls}")

data.stop_gradient = False  # an input that needs a gradient: the function is recorded
head(Recompute.apply(data)).sum().backward()
recomputed = rounded(block.weight.grad)
expected = rounded(paddle.grad(head(block(data)).sum(), block.weight)[0])
print(f"input needs a gradient:  backward calls {calls['backward']}")
print(f"block.weight.grad:       {recomputed}")
print(f"expected:                {expected}")
