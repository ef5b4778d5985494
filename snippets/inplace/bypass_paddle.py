import numpy as np
import paddle


def overwrite_saved_input(write):
    """sin saves its input; overwrite that input through `write`, then run backward."""
    weight = paddle.to_tensor([0.5, 1.0, 2.0], stop_gradient=False)
    hidden = weight * 1
    result = paddle.sin(hidden)
    write(hidden)
    try:
        result.sum().backward()
    except RuntimeError as error:
        if "modified by an inplace operation" not in str(error):
            raise
        return "error"
    correct = paddle.allclose(weight.grad, paddle.cos(weight.detach())).item()
    return "correct gradient" if correct else "wrong gradient, no error"


def under_no_grad(hidden):
    with paddle.no_grad():
        hidden.add_(paddle.ones_like(hidden))


def through_numpy(hidden):
    array = hidden.numpy()  # in Paddle, numpy() returns a copy
    array += 1


def through_dlpack(hidden):
    array = np.from_dlpack(hidden.detach())  # shares memory with hidden
    array += 1


VALUES = np.array([7.0, 8.0, 9.0], dtype="float32")
initializer = paddle.nn.initializer
outcome = {
    "no_grad": overwrite_saved_input(under_no_grad),
    "detach": overwrite_saved_input(lambda hidden: hidden.detach().add_(paddle.ones_like(hidden))),
    "data": overwrite_saved_input(lambda hidden: hidden.data.add_(paddle.ones_like(hidden))),
    "copy_": overwrite_saved_input(lambda hidden: hidden.copy_(hidden + 1, True)),
    "out": overwrite_saved_input(
        lambda hidden: paddle.add(hidden, paddle.ones_like(hidden), out=hidden)
    ),
    "exponential_": overwrite_saved_input(lambda hidden: hidden.exponential_()),
    "assign": overwrite_saved_input(
        lambda hidden: paddle.assign(paddle.to_tensor(VALUES), output=hidden)
    ),
    "assign_ndarray": overwrite_saved_input(lambda hidden: paddle.assign(VALUES, output=hidden)),
    "set_value": overwrite_saved_input(lambda hidden: hidden.set_value(hidden + 1)),
    "initializer": overwrite_saved_input(lambda hidden: initializer.Constant(1.0)(hidden)),
    "initializer_assign": overwrite_saved_input(lambda hidden: initializer.Assign(VALUES)(hidden)),
    "initializer_uniform": overwrite_saved_input(lambda hidden: initializer.Uniform()(hidden)),
    "initializer_normal": overwrite_saved_input(lambda hidden: initializer.Normal()(hidden)),
    "numpy": overwrite_saved_input(through_numpy),
    "dlpack": overwrite_saved_input(through_dlpack),
}
for route, result in outcome.items():
    print(f"{route:20} {result}")
