import numpy as np
import torch


def overwrite_saved_input(write):
    """sin saves its input; overwrite that input through `write`, then run backward."""
    weight = torch.tensor([0.5, 1.0, 2.0], requires_grad=True)
    hidden = weight * 1
    result = torch.sin(hidden)
    write(hidden)
    try:
        result.sum().backward()
    except RuntimeError as error:
        if "modified by an inplace operation" not in str(error):
            raise
        return "error"
    correct = torch.allclose(weight.grad, torch.cos(weight.detach()))
    return "correct gradient" if correct else "wrong gradient, no error"


def under_no_grad(hidden):
    with torch.no_grad():
        hidden.add_(1.0)


def out_argument(hidden):
    with torch.no_grad():  # out= refuses inputs that require grad outside no_grad
        torch.add(hidden, 1.0, out=hidden)


def through_numpy(hidden):
    array = hidden.detach().numpy()  # shares memory with hidden
    array += 1


def through_dlpack(hidden):
    array = np.from_dlpack(hidden.detach())  # shares memory with hidden
    array += 1


init = torch.nn.init
outcome = {
    "no_grad": overwrite_saved_input(under_no_grad),
    "detach": overwrite_saved_input(lambda hidden: hidden.detach().add_(1.0)),
    "data": overwrite_saved_input(lambda hidden: hidden.data.add_(1.0)),
    "copy_": overwrite_saved_input(lambda hidden: hidden.copy_(hidden + 1)),
    "out": overwrite_saved_input(out_argument),
    "exponential_": overwrite_saved_input(lambda hidden: hidden.exponential_()),
    "initializer": overwrite_saved_input(lambda hidden: init.constant_(hidden, 1.0)),
    "initializer_uniform": overwrite_saved_input(lambda hidden: init.uniform_(hidden)),
    "initializer_normal": overwrite_saved_input(lambda hidden: init.normal_(hidden)),
    "numpy": overwrite_saved_input(through_numpy),
    "dlpack": overwrite_saved_input(through_dlpack),
}
for route, result in outcome.items():
    print(f"{route:20} {result}")
