import numpy as np
import paddle

COEFFS = np.arange(1.0, 13.0, dtype="float32").reshape(3, 4)  # the loss weighs every element


def as_numpy(index):
    """The same index for a NumPy array: which elements `hidden[index]` selects."""
    if isinstance(index, tuple):
        return tuple(as_numpy(part) for part in index)
    return index.numpy() if isinstance(index, paddle.Tensor) else index


def assign(index):
    """`hidden[index] = 2 * source`, then backward: do `base` and `source` get their gradients?"""
    written = np.zeros((3, 4), dtype=bool)
    written[as_numpy(index)] = True
    base = paddle.ones([3, 4])
    base.stop_gradient = False
    source = paddle.ones(COEFFS[as_numpy(index)].shape)
    source.stop_gradient = False
    hidden = base * 1
    hidden[index] = 2 * source
    (hidden * paddle.to_tensor(COEFFS)).sum().backward()
    if source.grad is None:
        return "source gets no gradient"
    base_right = np.allclose(base.grad.numpy(), COEFFS * ~written)
    source_right = np.allclose(source.grad.numpy(), 2 * COEFFS[as_numpy(index)])
    if base_right and source_right:
        return "recorded, correct gradients"
    return f"base gradient {'right' if base_right else 'wrong'}, source {'right' if source_right else 'wrong'}"


rows = paddle.to_tensor([0, 2])
FORMS = {
    "hidden[1]": 1,
    "hidden[-1]": -1,
    "hidden[1:]": slice(1, None),
    "hidden[::2]": slice(None, None, 2),
    "hidden[:, 0]": (slice(None), 0),
    "hidden[..., 1]": (Ellipsis, 1),
    "hidden[[0, 2]]": [0, 2],
    "hidden[[0, 2], [1, 3]]": ([0, 2], [1, 3]),
    "hidden[rows]": rows,
    "hidden[rows, 1:]": (rows, slice(1, None)),
    "hidden[paddle.to_tensor(1)]": paddle.to_tensor(1),
    "hidden[mask]": paddle.to_tensor(COEFFS % 3 == 0),
    "hidden[row_mask]": paddle.to_tensor([True, False, True]),
}
outcome = {form: assign(index) for form, index in FORMS.items()}
for form, result in outcome.items():
    print(f"{form + ' = 2 * source':42} {result}")
