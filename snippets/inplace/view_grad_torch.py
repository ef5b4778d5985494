import torch

weight = torch.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], requires_grad=True)
scale = torch.arange(6.0).reshape(2, 3)


def gradient(reshape):
    """Gradient of sum(reshape(weight).T * scale): the gradient that reaches the reshape
    comes through a transpose, so it is not contiguous."""
    weight.grad = None
    (reshape(weight).T * scale).sum().backward()
    return weight.grad.flatten().tolist()


through_view = gradient(lambda w: w.view(3, 2))
through_reshape = gradient(lambda w: w.reshape(3, 2))
print(f"view(3, 2):    {through_view}")
print(f"reshape(3, 2): {through_reshape}")

# at the view itself: the input of view is not contiguous
try:
    weight.T.view(6)
    at_view = "no error"
except RuntimeError as error:
    at_view = f"RuntimeError at view: {error}"
print(f"transpose, then view(6): {at_view}")
reshaped = weight.T.reshape(6).tolist()  # what view refuses, reshape does
print(f"transpose, then reshape(6): {reshaped}")
