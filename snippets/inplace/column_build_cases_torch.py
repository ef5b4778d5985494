import torch

torch.manual_seed(0)
batch, steps, features = 2, 4, 3
inputs = torch.randn(batch, steps, features)
initial_w_hh = torch.randn(features, features)


def run(build):
    """Build the states with `build`, backward through their sum; the gradient of w_hh or the error."""
    w_hh = initial_w_hh.clone().requires_grad_()
    try:
        build(w_hh).sum().backward()
    except RuntimeError as error:
        if "modified by an inplace operation" not in str(error):
            raise
        return "error"
    return w_hh.grad


def step(previous, w_hh, t):
    return torch.tanh(previous @ w_hh + inputs[:, t])


def item_assignment(w_hh):
    states = torch.zeros(batch, steps, features)
    for t in range(1, steps):
        states[:, t] = step(states[:, t - 1], w_hh, t)
    return states


def copy_into_column(w_hh):
    states = torch.zeros(batch, steps, features)
    for t in range(1, steps):
        states[:, t].copy_(step(states[:, t - 1], w_hh, t))
    return states


def time_major_rows(w_hh):
    states = torch.zeros(steps, batch, features)
    for t in range(1, steps):
        states[t] = step(states[t - 1], w_hh, t)
    return states.transpose(0, 1)


def clone_previous(w_hh):
    states = torch.zeros(batch, steps, features)
    for t in range(1, steps):
        states[:, t] = step(states[:, t - 1].clone(), w_hh, t)  # the matmul saves the copy
    return states


def list_then_stack(w_hh):
    columns = [torch.zeros(batch, features)]
    for t in range(1, steps):
        columns.append(step(columns[-1], w_hh, t))
    return torch.stack(columns, dim=1)


def decay_only(w_hh):
    states = torch.zeros(batch, steps, features)
    for t in range(1, steps):  # multiplying by a number saves nothing
        states[:, t] = states[:, t - 1] * 0.9 + inputs[:, t] @ w_hh
    return states


def decay_reference(w_hh):
    columns = [torch.zeros(batch, features)]
    for t in range(1, steps):
        columns.append(columns[-1] * 0.9 + inputs[:, t] @ w_hh)
    return torch.stack(columns, dim=1)


reference = run(list_then_stack)
outcome = {}
for name, build, expected in [
    ("states[:, t] = ...", item_assignment, reference),
    ("states[:, t].copy_(...)", copy_into_column, reference),
    ("states[t] = ... (time-major)", time_major_rows, reference),
    ("states[:, t - 1].clone() @ w_hh", clone_previous, reference),
    ("list of columns, then torch.stack", list_then_stack, reference),
    ("states[:, t] = states[:, t - 1] * 0.9 + ...", decay_only, run(decay_reference)),
]:
    gradient = run(build)
    if isinstance(gradient, str):
        outcome[name] = gradient
    else:
        outcome[name] = (
            "correct gradient" if torch.allclose(gradient, expected) else "wrong gradient"
        )
for name, result in outcome.items():
    print(f"{name:45} {result}")
