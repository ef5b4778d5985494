import paddle
import paddle.nn.functional as F

N = 1 << 20  # 2**20 float32 values: 4 MiB per tensor
inputs = paddle.rand([N])
inputs.stop_gradient = False


# Each pair applies one operation to the same new tensor, x * 2.
def sin_out_of_place(x):
    return paddle.sin(x * 2)  # backward of sin needs its input


def sin_in_place(x):
    return (x * 2).sin_()


def exp_out_of_place(x):
    return paddle.exp(x * 2)  # backward of exp needs its output


def exp_in_place(x):
    return (x * 2).exp_()


def relu_out_of_place(x):
    return F.relu(x * 2)  # backward of relu needs its output


def relu_in_place(x):
    return F.relu_(x * 2)


def scale_out_of_place(x):
    return (x * 2).scale(3.0)  # backward of scaling by a constant needs nothing


def scale_in_place(x):
    return (x * 2).scale_(3.0)


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
    inputs.clear_grad()
    in_place(inputs).sum().backward()
    same_gradient[name] = paddle.allclose(inputs.grad, reference).item()
    inputs.clear_grad()
print(f"same gradient in place and out of place: {same_gradient}")
