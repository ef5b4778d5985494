import torch

# The message that means "autograd refused this write"; anything else is re-raised.
REFUSAL = "a view of a leaf Variable that requires grad is being used in an in-place operation"
VALUES = [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0], [7.0, 8.0, 9.0]]


def add_to_part(take):
    """`add_` on the part of a fresh leaf that `take` selects; report what happened."""
    weight = torch.tensor(VALUES, requires_grad=True)
    part = take(weight)
    part_is_leaf = part.is_leaf
    try:
        part.add_(torch.ones(part.shape))
        error = "no error"
    except RuntimeError as exc:
        if REFUSAL not in str(exc):
            raise
        error = "RuntimeError"
    return {
        "part is a leaf": part_is_leaf,
        "error": error,
        "weight changed": weight.tolist() != VALUES,
        "version": weight._version,
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
