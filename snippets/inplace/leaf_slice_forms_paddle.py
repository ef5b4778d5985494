import paddle

# The message that means "autograd refused this write"; anything else is re-raised.
REFUSAL = "that doesn't stop gradient can't use inplace strategy"
VALUES = [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0], [7.0, 8.0, 9.0]]
ROW = [[1.0, 2.0, 3.0]]  # a 1 × 3 leaf: its one row holds every element


def add_to_part(take, values=VALUES):
    """`add_` on the part of a fresh leaf that `take` selects; report what happened."""
    weight = paddle.to_tensor(values, stop_gradient=False)
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
        "weight changed": weight.tolist() != values,
        "version": weight.inplace_version,
    }


PARTS = {
    "weight[:]": lambda weight: weight[:],
    "weight[...]": lambda weight: weight[...],
    "weight[:3]": lambda weight: weight[:3],  # every row: the whole tensor
    "weight[:, :]": lambda weight: weight[:, :],
    "weight[-3:]": lambda weight: weight[-3:],
    "weight[0:3:1]": lambda weight: weight[0:3:1],
    "weight[:5]": lambda weight: weight[:5],  # past the end: every row
    "weight[:2]": lambda weight: weight[:2],
    "weight[1:]": lambda weight: weight[1:],
    "weight[0]": lambda weight: weight[0],
    "weight[:, :2]": lambda weight: weight[:, :2],
    "weight[::2]": lambda weight: weight[::2],
    "weight[None]": lambda weight: weight[None],  # every element, one more axis
    "weight[::-1]": lambda weight: weight[::-1],  # every element, same shape, rows reversed
    "weight[:, ::-1]": lambda weight: weight[:, ::-1],
}
ROW_PARTS = {
    "row[0]": lambda row: row[0],  # every element, one axis fewer
    "row[0:1]": lambda row: row[0:1],  # every element, same shape
}
outcome = {form: add_to_part(take) for form, take in PARTS.items()}
outcome.update({form: add_to_part(take, ROW) for form, take in ROW_PARTS.items()})
for form, result in outcome.items():
    print(f"{form + '.add_(1)':22} {result}")
