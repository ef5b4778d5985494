import paddle
import paddle.nn.functional as F

OPS = {
    "sin": paddle.sin,
    "exp": paddle.exp,
    "relu": F.relu,
    "sigmoid": F.sigmoid,
    "silu": F.silu,
    "cumsum": lambda t: paddle.cumsum(t, axis=0),
    "scale": lambda t: paddle.scale(t, 3.0),
}


def backward_fails(op, overwrite):
    """Run op, overwrite its input or its output in place, then try backward."""
    weight = paddle.to_tensor([0.5, 1.0, 2.0], stop_gradient=False)
    hidden = weight * 1
    result = op(hidden)
    (hidden if overwrite == "input" else result).add_(paddle.to_tensor(1.0))
    try:
        result.sum().backward()
    except RuntimeError as error:
        if "modified by an inplace operation" not in str(error):
            raise
        return True
    return False


needs = {}
for name, op in OPS.items():
    saved = [part for part in ("input", "output") if backward_fails(op, part)]
    needs[name] = " + ".join(saved) or "nothing"
    print(f"{name:8} backward needs: {needs[name]}")
