import paddle

weight = paddle.to_tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], stop_gradient=False)
scale = paddle.arange(6, dtype="float32").reshape([2, 3])


def gradient(reshape):
    """Gradient of sum(reshape(weight).T * scale): the gradient that reaches the reshape
    comes through a transpose, so it is not contiguous."""
    weight.clear_grad()
    try:
        (reshape(weight).transpose([1, 0]) * scale).sum().backward()
    except (ValueError, RuntimeError) as error:
        message = str(error).strip().splitlines()[0].split(" (at ")[0]
        return f"{type(error).__name__} at backward: {message}"
    return weight.grad.flatten().tolist()


through_view = gradient(lambda w: w.view([3, 2]))
through_reshape = gradient(lambda w: w.reshape([3, 2]))
print(f"view([3, 2]):    {through_view}")
print(f"reshape([3, 2]): {through_reshape}")

# the same message at the view itself: the input of view is not contiguous
try:
    weight.transpose([1, 0]).view([6])
    at_view = "no error"
except ValueError as error:
    at_view = f"ValueError at view: {str(error).strip().splitlines()[0].split(' (at ')[0]}"
print(f"transpose, then view([6]): {at_view}")
reshaped = weight.transpose([1, 0]).reshape([6]).tolist()  # what view refuses, reshape does
print(f"transpose, then reshape([6]): {reshaped}")
