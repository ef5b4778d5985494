import torch

# How each refusal starts; anything else is re-raised.
REFUSALS = ("a view of a leaf Variable", "a leaf Variable")


def assign_into_leaf(index):
    """Assign 0 at `index` in a fresh leaf that requires gradients; report what happened."""
    weight = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    try:
        weight[index] = 0.0
        error, says = None, None
    except RuntimeError as exc:
        says = next((text for text in REFUSALS if str(exc).startswith(text)), None)
        if says is None:
            raise
        error = "RuntimeError"
    changed = weight.tolist() != [1.0, 2.0, 3.0]
    return {"error": error, "message says": says, "data changed": changed}


INDICES = {
    "weight[0]": 0,
    "weight[1:]": slice(1, None),
    "weight[:]": slice(None),
    "weight[...]": Ellipsis,
    "weight[[0, 2]]": [0, 2],
    "weight[mask]": torch.tensor([True, False, True]),
}
outcome = {form: assign_into_leaf(index) for form, index in INDICES.items()}
for form, result in outcome.items():
    print(f"{form + ' = 0':20} {result}")
