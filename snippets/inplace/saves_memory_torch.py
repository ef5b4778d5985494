import torch

N = 1 << 20  # 2**20 float32 values: 4 MiB per tensor
inputs = torch.rand(N, requires_grad=True)


# Each pair applies one operation to the same new tensor, x * 2.
def sin_out_of_place(x):
    return torch.sin(x * 2)  # backward of sin needs its input


def sin_in_place(x):
    return (x * 2).sin_()


def exp_out_of_place(x):
    return torch.exp(x * 2)  # backward of exp needs its output


def exp_in_place(x):
    return (x * 2).exp_()


def relu_out_of_place(x):
    return torch.relu(x * 2)  # backward of relu needs its output


def relu_in_place(x):
    return (x * 2).relu_()


def scale_out_of_place(x):
    return (x * 2) * 3  # backward of multiplying by a constant needs nothing


def scale_in_place(x):
    return (x * 2).mul_(3)


PAIRS = {
    "sin": (sin_out_of_place, sin_in_place),
    "exp": (exp_out_of_place, exp_in_place),
    "relu": (relu_out_of_place, relu_in_place),
    "scale": (scale_out_of_place, scale_in_place),
}
same_gradient = {}
for name, (out_of_place, in_place) in PAIRS.items():
    out_of_place(inputs).sum().backward()
    reference = inputs.grad.clone()
    inputs.grad = None
    in_place(inputs).sum().backward()
    same_gradient[name] = torch.allclose(inputs.grad, reference)
    inputs.grad = None
print(f"same gradient in place and out of place: {same_gradient}")
