import paddle

EXPECTED = paddle.exp(paddle.to_tensor([0.5, 1.0])).tolist() + [1.0]  # d/dw of the sum below


def activate_head(w):
    hidden = w * 1
    hidden[:2].exp_()  # in place, through a view
    return hidden


def gradient(wrap):
    """Gradient of the sum of activate_head, run through `wrap`; or the error it raised."""
    weight = paddle.to_tensor([0.5, 1.0, 2.0], stop_gradient=False)
    try:
        wrap(activate_head)(weight).sum().backward()
    except Exception as error:  # the default mode wraps the ValueError in its own type
        if "is a viewed Tensor in dygraph" not in str(error):
            raise
        kind = "a ValueError" if isinstance(error, ValueError) else "not a ValueError"
        return f"{type(error).__name__} ({kind}): inplace on a viewed Tensor"
    if paddle.allclose(weight.grad, paddle.to_tensor(EXPECTED)).item():
        return "correct gradient"
    return f"wrong gradient, no error: {weight.grad.tolist()}"


outcome = {
    "eager": gradient(lambda function: function),
    "to_static": gradient(paddle.jit.to_static),
    "to_static full_graph=True": gradient(
        lambda function: paddle.jit.to_static(function, full_graph=True)
    ),
}
for mode, result in outcome.items():
    print(f"{mode:26} {result}")
