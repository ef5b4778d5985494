import torch

weight = torch.tensor([[0.5, 1.0], [2.0, -1.0], [1.5, 0.5]], requires_grad=True)


def assign_first_row(new_row):
    """`hidden[0] = new_row(hidden[0])` once, then backward; what happens."""
    # Out of place: the first row replaced, the others kept; the gradient to compare with.
    reference = torch.cat([new_row(weight[0]).unsqueeze(0), weight[1:]])
    expected = torch.autograd.grad((reference * reference).sum(), weight)[0]
    weight.grad = None
    hidden = weight * 1
    hidden[0] = new_row(hidden[0])  # a single assignment, no later one
    try:
        (hidden * hidden).sum().backward()
    except RuntimeError as error:
        return f"error at backward: {str(error).split('. ')[0]}"
    correct = torch.allclose(weight.grad, expected)
    return "correct gradient" if correct else "wrong gradient, no error"


def times_tensor(row):
    return row * torch.tensor(2.0)  # mul does not save the row here: the factor needs no gradient


def times_tensor_with_grad(row):
    scale = torch.tensor(2.0, requires_grad=True)
    return row * scale  # now mul saves the row


def times_number(row):
    return row * 2.0


def plus_itself(row):
    return row + row


outcome = {
    "hidden[0] = hidden[0] * torch.tensor(2.0)": assign_first_row(times_tensor),
    "hidden[0] = hidden[0] * scale (requires grad)": assign_first_row(times_tensor_with_grad),
    "hidden[0] = hidden[0].sin()": assign_first_row(torch.sin),
    "hidden[0] = hidden[0] ** 2": assign_first_row(lambda row: row**2),
    "hidden[0] = hidden[0] * 2.0": assign_first_row(times_number),
    "hidden[0] = hidden[0] + hidden[0]": assign_first_row(plus_itself),
}
for route, result in outcome.items():
    print(f"{route:46} {result}")
