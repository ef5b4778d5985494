import paddle

# The message that means "autograd refused this write"; anything else is re-raised.
REFUSAL = "that doesn't stop gradient can't use inplace strategy"
VALUES = [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0], [7.0, 8.0, 9.0]]


def add_to_part(take):
    """`add_` on the part of a fresh leaf that `take` selects; report what happened."""
    weight = paddle.to_tensor(VALUES, stop_gradient=False)
    part = take(weight)
    part_is_leaf = part.is_leaf
    try:
        part.add_(paddle.ones(part.shape))
        error = "no error"
    except ValueError as exc:
        if REFUSAL not in str(exc):
            raise
        error = "ValueError"
    return {
        "part is a leaf": part_is_leaf,
        "error": error,
        "weight changed": weight.tolist() != VALUES,
        "version": weight.inplace_version,
    }


PARTS = {
    "weight[:]": lambda weight: weight[:],
    "weight[...]": lambda weight: weight[...],
    "weight[:3]": lambda weight: weight[:3],  # every row: the whole tensor
    "weight[:2]": lambda weight: weight[:2],
    "weight[1:]": lambda weight: weight[1:],
    "weight[0]": lambda weight: weight[0],
    "weight[:, :2]": lambda weight: weight[:, :2],
    "weight[::2]": lambda weight: weight[::2],
}
outcome = {form: add_to_part(take) for form, take in PARTS.items()}
for form, result in outcome.items():
    print(f"{form + '.add_(1)':22} {result}")
