import paddle


class Sin(paddle.autograd.PyLayer):
    """sin written as a custom operation: its backward needs its input."""

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return paddle.sin(x)

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensor()
        return grad * paddle.cos(x)


weight = paddle.to_tensor([0.5, 1.0, 2.0], stop_gradient=False)
hidden = weight * 1
result = Sin.apply(hidden)
hidden.add_(paddle.ones_like(hidden))  # overwrites what Sin saved; the counter sees it
print(f"version of hidden: {hidden.inplace_version}")

try:
    result.sum().backward()
    raised = False
except RuntimeError as error:
    if "modified by an inplace operation" not in str(error):
        raise
    raised = True
    print(f"RuntimeError: {str(error).splitlines()[0]}")

expected = paddle.cos(weight.detach())  # d/dw of sum(sin(w))
if not raised:
    print(f"gradient: {[round(v, 4) for v in weight.grad.tolist()]}")
    print(f"expected: {[round(v, 4) for v in expected.tolist()]}")
