import torch

# The messages that mean "autograd refused this write"; anything else is re-raised.
REFUSALS = (
    "a leaf Variable that requires grad",
    "a view of a leaf Variable that requires grad",
    "out=... arguments don't support automatic differentiation",
)


def try_write(write):
    """Apply one write to a fresh leaf and report what happened to it."""
    weight = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    source = torch.tensor([5.0, 6.0, 7.0])
    try:
        write(weight, source)
        error = None
    except RuntimeError as exc:
        if not any(text in str(exc) for text in REFUSALS):
            raise
        error = "RuntimeError"
    changed = weight.tolist() != [1.0, 2.0, 3.0]
    return {
        "error": error,
        "data changed": changed,
        "version": weight._version,
        "leaf": weight.is_leaf,
    }


def assign_item(weight, source):
    weight[0] = 0.0


def exponential_under_no_grad(weight, source):
    with torch.no_grad():
        weight.exponential_()


index = torch.tensor([0])
WRITES = {
    "weight.mul_(2)": lambda weight, source: weight.mul_(2),
    "weight.exp_()": lambda weight, source: weight.exp_(),
    "weight.zero_()": lambda weight, source: weight.zero_(),
    "weight.index_fill_(0, index, 9)": lambda weight, source: weight.index_fill_(0, index, 9.0),
    "weight.exponential_()": lambda weight, source: weight.exponential_(),
    "weight.exponential_(), no_grad": exponential_under_no_grad,
    "weight[0] = 0": assign_item,
    "weight[:2].mul_(2)": lambda weight, source: weight[:2].mul_(2),
    "weight.copy_(source)": lambda weight, source: weight.copy_(source),
    "torch.add(source, source, out=weight)": lambda weight, source: torch.add(
        source, source, out=weight
    ),
    "weight.detach().mul_(2)": lambda weight, source: weight.detach().mul_(2),
    "weight.data.mul_(2)": lambda weight, source: weight.data.mul_(2),
}
outcome = {name: try_write(write) for name, write in WRITES.items()}
for name, result in outcome.items():
    print(f"{name:38} {result}")
