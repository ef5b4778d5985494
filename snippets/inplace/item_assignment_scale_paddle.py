import paddle

weight = paddle.to_tensor([[0.5, 1.0], [2.0, -1.0], [1.5, 0.5]], stop_gradient=False)


def assign_first_row(new_row):
    """`hidden[0] = new_row(hidden[0])` once, then backward; what happens."""
    # Out of place: the first row replaced, the others kept; the gradient to compare with.
    reference = paddle.concat([new_row(weight[0]).unsqueeze(0), weight[1:]])
    expected = paddle.grad((reference * reference).sum(), weight)[0]
    weight.clear_gradient()
    hidden = weight * 1
    hidden[0] = new_row(hidden[0])  # a single assignment, no later one
    try:
        (hidden * hidden).sum().backward()
    except RuntimeError as error:
        return f"error at backward: {str(error).split('. ')[0]}"
    correct = paddle.allclose(weight.grad, expected).item()
    return "correct gradient" if correct else "wrong gradient, no error"


def times_tensor(row):
    return row * paddle.to_tensor(2.0)  # multiply saves the row it reads


def times_number(row):
    return row * 2.0  # a Python number: Paddle runs scale, which does not save the row


def plus_itself(row):
    return row + row  # add does not save the row


outcome = {
    "hidden[0] = hidden[0] * paddle.to_tensor(2.0)": assign_first_row(times_tensor),
    "hidden[0] = hidden[0] * 2.0": assign_first_row(times_number),
    "hidden[0] = hidden[0] + hidden[0]": assign_first_row(plus_itself),
    "hidden[0] = hidden[0].sin()": assign_first_row(paddle.sin),
    "hidden[0] = hidden[0] ** 2": assign_first_row(lambda row: row**2),
}
for route, result in outcome.items():
    print(f"{route:46} {result}")
