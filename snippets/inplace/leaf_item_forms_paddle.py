import paddle

# How each refusal starts; anything else is re-raised.
REFUSALS = ("Leaf Tensor", "Leaf Var")


def assign_into_leaf(index):
    """Assign 0 at `index` in a fresh leaf that requires gradients; report what happened."""
    weight = paddle.to_tensor([1.0, 2.0, 3.0], stop_gradient=False)
    try:
        weight[index] = 0.0
        error, says = None, None
    except ValueError as exc:
        says = next((text for text in REFUSALS if text in str(exc)), None)
        if says is None:
            raise
        error = "ValueError"
    changed = weight.tolist() != [1.0, 2.0, 3.0]
    return {"error": error, "message says": says, "data changed": changed}


INDICES = {
    "weight[0]": 0,
    "weight[1:]": slice(1, None),
    "weight[:]": slice(None),
    "weight[...]": Ellipsis,
    "weight[[0, 2]]": [0, 2],
    "weight[mask]": paddle.to_tensor([True, False, True]),
}
outcome = {form: assign_into_leaf(index) for form, index in INDICES.items()}
for form, result in outcome.items():
    print(f"{form + ' = 0':20} {result}")
