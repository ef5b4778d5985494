import paddle


def overwrite_saved_input(write):
    """sin saves its input; overwrite that input through `write`, then run backward."""
    weight = paddle.to_tensor([0.5, 1.0, 2.0], stop_gradient=False)
    hidden = weight * 1
    result = paddle.sin(hidden)
    write(hidden)
    try:
        result.sum().backward()
    except RuntimeError:
        return "error"
    correct = paddle.allclose(weight.grad, paddle.cos(weight.detach())).item()
    return "correct gradient" if correct else "wrong gradient, no error"


def under_no_grad(hidden):
    with paddle.no_grad():
        hidden.add_(paddle.to_tensor(1.0))


outcome = {
    "no_grad": overwrite_saved_input(under_no_grad),
    "detach": overwrite_saved_input(lambda hidden: hidden.detach().add_(paddle.to_tensor(1.0))),
    "data": overwrite_saved_input(lambda hidden: hidden.data.add_(paddle.to_tensor(1.0))),
    "set_value": overwrite_saved_input(lambda hidden: hidden.set_value(hidden + 1.0)),
}
for route, result in outcome.items():
    print(f"{route:10} {result}")
