import torch

torch.manual_seed(0)
block = torch.nn.Linear(2, 2)
head = torch.nn.Linear(2, 1)
calls = {"backward": 0}


class Recompute(torch.autograd.Function):
    """Runs `block` without keeping its activations, and runs it again in backward."""

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return block(x)  # block's weight is read here, but it is not an input

    @staticmethod
    def backward(ctx, grad):
        calls["backward"] += 1
        (x,) = ctx.saved_tensors
        x = x.detach().requires_grad_()
        with torch.enable_grad():
            torch.autograd.backward(block(x), grad)  # block's weight gets its gradient here
        return x.grad


def rounded(tensor):
    return [[round(v, 4) for v in row] for row in tensor.tolist()]


data = torch.tensor([[1.0, 2.0]])  # as a data loader gives it: requires_grad=False
output = Recompute.apply(data)
head(output).sum().backward()
output_needs_grad = output.requires_grad
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

data.requires_grad_()  # an input that needs a gradient: the function is recorded
head(Recompute.apply(data)).sum().backward()
recomputed = rounded(block.weight.grad)
expected = rounded(torch.autograd.grad(head(block(data)).sum(), block.weight)[0])
print(f"input needs a gradient:  backward calls {calls['backward']}")
print(f"block.weight.grad:       {recomputed}")
print(f"expected:                {expected}")
