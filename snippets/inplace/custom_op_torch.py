import torch


class Sin(torch.autograd.Function):
    """sin written as a custom operation: its backward needs its input."""

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return torch.sin(x)

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return grad * torch.cos(x)


weight = torch.tensor([0.5, 1.0, 2.0], requires_grad=True)
hidden = weight * 1
result = Sin.apply(hidden)
hidden.add_(1.0)  # overwrites what Sin saved; the counter sees it
print(f"version of hidden: {hidden._version}")

try:
    result.sum().backward()
    raised = False
except RuntimeError as error:
    if "modified by an inplace operation" not in str(error):
        raise
    raised = True
    print(f"RuntimeError: {str(error).splitlines()[0]}")

expected = torch.cos(weight.detach())  # d/dw of sum(sin(w))
if not raised:
    print(f"gradient: {[round(v, 4) for v in weight.grad.tolist()]}")
    print(f"expected: {[round(v, 4) for v in expected.tolist()]}")
