import torch


class MaskedScale(torch.autograd.Function):
    """Applies a mask, and returns the mask too, as it is."""

    @staticmethod
    def forward(ctx, x, mask):
        ctx.save_for_backward(mask)
        return x * mask, mask  # mask is an input, returned as an output

    @staticmethod
    def backward(ctx, grad, grad_mask):
        (mask,) = ctx.saved_tensors
        return grad * mask, None


class MaskedScaleMarked(MaskedScale):
    """The same, with the mask marked as needing no gradient."""

    @staticmethod
    def forward(ctx, x, mask):
        ctx.save_for_backward(mask)
        ctx.mark_non_differentiable(mask)
        return x * mask, mask


x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
mask = torch.tensor([1.0, 0.0, 1.0])  # data: requires_grad=False
result, unmarked_mask = MaskedScale.apply(x, mask)
result.sum().backward()
unmarked_gradient = x.grad.tolist()
print(f"unmarked:  returned mask is mask: {unmarked_mask is mask}")
print(f"           same memory: {unmarked_mask.data_ptr() == mask.data_ptr()}")
print(f"           requires_grad: {unmarked_mask.requires_grad}")
print(f"           grad_fn: {type(unmarked_mask.grad_fn).__name__}")
print(f"           x.grad: {unmarked_gradient}")

x.grad = None
result, marked_mask = MaskedScaleMarked.apply(x, mask)
result.sum().backward()
marked_gradient = x.grad.tolist()
print(f"marked:    returned mask is mask: {marked_mask is mask}")
print(f"           requires_grad: {marked_mask.requires_grad}")
print(f"           x.grad: {marked_gradient}")

write_error = "no error"
try:
    unmarked_mask.mul_(2)  # an in-place write into the unmarked mask returned
except RuntimeError as error:
    write_error = f"RuntimeError: {str(error).splitlines()[0]}"
print(f"unmarked mask, mul_(2): {write_error}")
