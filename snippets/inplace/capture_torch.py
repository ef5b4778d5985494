import torch


def features(w):
    hidden = w * 2
    hidden.sin_()  # in place on an intermediate result
    hidden.mul_(3.0)
    return hidden


def shift(counts):
    counts.add_(1.0)  # in place on the caller's tensor
    return counts * 2


def run(wrap):
    """Run both functions, wrapped by `wrap`, and collect what the caller sees."""
    weight = torch.tensor([0.5, 1.0, 2.0], requires_grad=True)
    values = wrap(features)(weight)
    values.sum().backward()
    counts = torch.tensor([1.0, 2.0, 3.0])
    doubled = wrap(shift)(counts)
    return {
        "values": values.tolist(),
        "gradient": weight.grad.tolist(),
        "returned": doubled.tolist(),
        "caller's counts": counts.tolist(),
    }


eager = run(lambda function: function)
# aot_eager: AOTAutograd traces forward and backward, rewriting in-place ops out of place
# (functionalization), and runs the graph without compiling code (inductor would compile C++).
compiled = run(lambda function: torch.compile(function, backend="aot_eager"))
for key in eager:
    same = torch.allclose(torch.tensor(eager[key]), torch.tensor(compiled[key]))
    print(f"{key:16} eager {[round(v, 4) for v in eager[key]]}, compiled: same {same}")
