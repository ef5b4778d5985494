import torch

a = torch.tensor(2.0, requires_grad=True)
b = torch.tensor(4.0)
c = a + b  # recorded: one operand (a) is already part of the graph
with torch.no_grad():
    d = a * 2  # not recorded: recording is off
e = a > 0  # not recorded: a comparison has no gradient

for name, tensor in {"a": a, "b": b, "c": c, "d": d, "e": e}.items():
    node = tensor.grad_fn.name() if tensor.grad_fn is not None else None
    print(f"{name}: requires_grad={tensor.requires_grad}, is_leaf={tensor.is_leaf}, grad_fn={node}")
