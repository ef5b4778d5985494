import paddle

weight = paddle.to_tensor([0.5, 1.0, 2.0], stop_gradient=False)
hidden = weight * 1  # requires gradients
data = paddle.to_tensor([1.0, 2.0, 3.0])  # an input: needs no gradient
loss = (data * weight).sum()  # saves data: the gradient of weight is data


def write_through(tensor, to_array):
    """Add 1 to the array that `to_array` gives for `tensor`; report whether it changed."""
    before = tensor.tolist()
    try:
        array = to_array()
    except RuntimeError as exc:
        return f"RuntimeError: {exc}"
    array += 1
    return "changed" if tensor.tolist() != before else "unchanged: a copy"


outcome = {
    "hidden.numpy()": write_through(hidden, lambda: hidden.numpy()),
    "hidden.detach().numpy()": write_through(hidden, lambda: hidden.detach().numpy()),
    "data.numpy()": write_through(data, lambda: data.numpy()),
}
loss.backward()
for route, result in outcome.items():
    print(f"{route:25} {result}")
print(f"weight.grad after backward: {weight.grad.tolist()} (the data was [1.0, 2.0, 3.0])")
