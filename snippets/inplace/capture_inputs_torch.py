import torch


class Double(torch.autograd.Function):
    """Doubles its input in place (see the custom-functions page)."""

    @staticmethod
    def forward(ctx, x):
        x.mul_(2)
        ctx.mark_dirty(x)
        return x

    @staticmethod
    def backward(ctx, grad):
        return grad * 2


def normalise(batch_norm, inputs):  # BatchNorm updates its running mean in place
    return batch_norm(inputs)


def sgd_step(param, grad):  # an optimiser-like step under no_grad, inside the captured function
    with torch.no_grad():
        param.sub_(0.1 * grad)


def write_into_slice(tensor):  # writes into a slice of its argument
    tensor[1:3].add_(1)
    return tensor.sum()


def scale(tensor):
    return tensor * 2


def double_inside(weight):  # the custom Function's result is not used: hidden was written
    hidden = weight.sin()
    Double.apply(hidden)
    return (hidden**2).sum()


def double_assigned(weight):  # the same, with the result assigned
    hidden = weight.sin()
    hidden = Double.apply(hidden)
    return (hidden**2).sum()


def double_argument(hidden):  # the custom Function writes into the captured function's argument
    Double.apply(hidden)
    return (hidden**2).sum()


def double_argument_assigned(hidden):  # the same, with the result assigned
    hidden = Double.apply(hidden)
    return (hidden**2).sum()


def double_argument_cloned(hidden):  # on a clone of the argument, the result assigned
    hidden = Double.apply(hidden.clone())
    return (hidden**2).sum()


def run(wrap):
    batch_norm = torch.nn.BatchNorm1d(2)
    wrap(normalise)(batch_norm, torch.tensor([[1.0, 2.0], [3.0, 6.0]]))
    param = torch.tensor([1.0, 2.0], requires_grad=True)
    wrap(sgd_step)(param, 2 * param.detach())  # the gradient of (param * param).sum()
    tensor = torch.zeros(4)
    wrap(write_into_slice)(tensor)
    view = torch.zeros(4)[1:3]
    view.add_(1)  # an argument that is a view, written in place before the call
    scaled = wrap(scale)(view)
    gradients = []
    for function in (double_inside, double_assigned):
        weight = torch.tensor([1.0, 2.0], requires_grad=True)
        wrap(function)(weight).backward()
        gradients.append([round(v, 4) for v in weight.grad.tolist()])
    for function in (double_argument, double_argument_assigned, double_argument_cloned):
        weight = torch.tensor([1.0, 2.0], requires_grad=True)
        wrap(function)(weight.sin()).backward()
        gradients.append([round(v, 4) for v in weight.grad.tolist()])
    return {
        "running mean": [round(v, 4) for v in batch_norm.running_mean.tolist()],
        "param after the step": [round(v, 4) for v in param.tolist()],
        "argument after the slice write": tensor.tolist(),
        "view argument, scaled": scaled.tolist(),
        "Function, result unused": gradients[0],
        "Function, result assigned": gradients[1],
        "Function on an argument, unused": gradients[2],
        "Function on an argument, assigned": gradients[3],
        "Function on a clone, assigned": gradients[4],
    }


eager = run(lambda function: function)
compiled = run(lambda function: torch.compile(function, backend="aot_eager"))
for case in eager:
    print(f"{case:33} eager {eager[case]}, torch.compile {compiled[case]}")
different = [case for case in eager if compiled[case] != eager[case]]
print("cases where torch.compile differs:", different)
