import torch


def compare(before, storage, after):
    """A statement wrote into the tensor if the name still refers to the same object and storage."""
    return {"same object": after is before, "same storage": after.data_ptr() == storage}


def apply_operators(x):
    evidence = {}
    before, storage = x, x.data_ptr()
    x += 1
    evidence["x += 1"] = compare(before, storage, x)
    before, storage = x, x.data_ptr()
    x *= 2
    evidence["x *= 2"] = compare(before, storage, x)
    before, storage = x, x.data_ptr()
    x -= 1
    evidence["x -= 1"] = compare(before, storage, x)
    before, storage = x, x.data_ptr()
    x[0] = 5.0
    evidence["x[0] = 5"] = compare(before, storage, x)
    evidence["version of x"] = x._version
    return evidence


weight = torch.ones(4, requires_grad=True)
grad_mode = apply_operators(weight * 1)  # an intermediate result, not a leaf
with torch.no_grad():
    no_grad_mode = apply_operators(weight * 1)

for mode, evidence in {"grad mode": grad_mode, "no_grad": no_grad_mode}.items():
    print(mode)
    for statement, result in evidence.items():
        print(f"  {statement:13} {result}")
