import torch
import torch.nn.functional as F

OPS = {
    "sin": torch.sin,
    "exp": torch.exp,
    "relu": torch.relu,
    "sigmoid": torch.sigmoid,
    "silu": F.silu,
    "cumsum": lambda t: torch.cumsum(t, dim=0),
    "scale": lambda t: t * 3,
}


def backward_fails(op, overwrite):
    """Run op, overwrite its input or its output in place, then try backward."""
    weight = torch.tensor([0.5, 1.0, 2.0], requires_grad=True)
    hidden = weight * 1
    result = op(hidden)
    (hidden if overwrite == "input" else result).add_(1.0)
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
