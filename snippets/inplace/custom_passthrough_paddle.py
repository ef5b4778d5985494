import paddle
from paddle.autograd import PyLayer


class MaskedScale(PyLayer):
    """Applies a mask, and returns the mask too, as it is."""

    @staticmethod
    def forward(ctx, x, mask):
        ctx.save_for_backward(mask)
        return x * mask, mask  # mask is an input: Paddle records it as written in place

    @staticmethod
    def backward(ctx, grad, grad_mask):
        (mask,) = ctx.saved_tensor()
        return grad * mask, None


class MaskedScaleMarked(MaskedScale):
    """The same, with the mask marked as needing no gradient."""

    @staticmethod
    def forward(ctx, x, mask):
        ctx.save_for_backward(mask)
        ctx.mark_non_differentiable(mask)
        return x * mask, mask


x = paddle.to_tensor([1.0, 2.0, 3.0], stop_gradient=False)
mask = paddle.to_tensor([1.0, 0.0, 1.0])  # data: stop_gradient=True
try:
    MaskedScale.apply(x, mask)
except ValueError as error:
    unmarked = str(error).strip().splitlines()[0]
    print(f"unmarked:  ValueError: {unmarked}")
mask_stop_gradient_after = mask.stop_gradient
print(f"           mask.stop_gradient after the error: {mask_stop_gradient_after}")

mask = paddle.to_tensor([1.0, 0.0, 1.0])
result, returned_mask = MaskedScaleMarked.apply(x, mask)
result.sum().backward()
gradient = x.grad.tolist()
print(f"marked:    returned mask is mask: {returned_mask is mask}")
print(f"           stop_gradient: {returned_mask.stop_gradient}")
print(f"           x.grad: {gradient}")
