import paddle

scales = paddle.to_tensor([2.0, 0.5, 3.0])  # one weight per sample


def check(scale_rows):
    """Scale each row of an intermediate tensor by its weight with `scale_rows`; compare."""
    weight = paddle.to_tensor([[0.5, 1.0], [2.0, -1.0], [1.5, 0.5]], stop_gradient=False)
    try:
        hidden = scale_rows(weight * 1)
    except (RuntimeError, ValueError) as error:
        return f"error at the write: {str(error).split('. ')[0]}"
    try:
        (hidden * hidden).sum().backward()  # the loss reads the whole tensor
    except RuntimeError as error:
        return f"error at backward: {str(error).split('. ')[0]}"
    expected = weight.detach() * scales[:, None]
    if not paddle.allclose(hidden, expected).item():
        return "the rows did not change"
    correct = paddle.allclose(weight.grad, 2 * expected * scales[:, None]).item()
    return "correct gradient" if correct else "wrong gradient, no error"


def iterate(hidden):
    for row, scale in zip(hidden, scales, strict=True):  # iterating over a tensor gives its rows
        row.multiply_(scale)
    return hidden


def iterate_augmented(hidden):
    for row, scale in zip(hidden, scales, strict=True):
        row *= scale
    return hidden


def index_rows(hidden):
    for i in range(len(hidden)):
        hidden[i].multiply_(scales[i])
    return hidden


def chunk(hidden):
    for piece, scale in zip(hidden.chunk(3), scales, strict=True):
        piece.multiply_(scale)
    return hidden


def split(hidden):
    for piece, scale in zip(paddle.split(hidden, 3), scales, strict=True):
        piece.multiply_(scale)
    return hidden


def unbind(hidden):
    for piece, scale in zip(paddle.unbind(hidden), scales, strict=True):
        piece.multiply_(scale)
    return hidden


def tensor_split(hidden):
    for piece, scale in zip(paddle.tensor_split(hidden, 3), scales, strict=True):
        piece.multiply_(scale)
    return hidden


def item_assignment(hidden):
    for i in range(len(hidden)):
        hidden[i] = hidden[i] * scales[i]
    return hidden


outcome = {
    "for row in hidden: row.multiply_(scale)": check(iterate),
    "for row in hidden: row *= scale": check(iterate_augmented),
    "hidden[i].multiply_(scale)": check(index_rows),
    "hidden.chunk(3)": check(chunk),
    "paddle.split(hidden, 3)": check(split),
    "paddle.unbind(hidden)": check(unbind),
    "paddle.tensor_split(hidden, 3)": check(tensor_split),
    "hidden[i] = hidden[i] * scale": check(item_assignment),
    "hidden * scales[:, None]": check(lambda hidden: hidden * scales[:, None]),
}
for route, result in outcome.items():
    print(f"{route:36} {result}")
