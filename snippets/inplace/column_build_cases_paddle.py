import paddle

paddle.seed(0)
batch, steps, features = 2, 4, 3
inputs = paddle.randn([batch, steps, features])
initial_w_hh = paddle.randn([features, features])


def run(build):
    """Build the states with `build`, backward through their sum; the gradient of w_hh or the error."""
    w_hh = initial_w_hh.clone()
    w_hh.stop_gradient = False
    try:
        build(w_hh).sum().backward()
    except RuntimeError as error:
        if "modified by an inplace operation" not in str(error):
            raise
        return "error"
    if w_hh.grad is None:
        return "w_hh gets no gradient, no error"
    return w_hh.grad


def step(previous, w_hh, t):
    return paddle.tanh(previous @ w_hh + inputs[:, t])


def item_assignment(w_hh):
    states = paddle.zeros([batch, steps, features])
    for t in range(1, steps):
        states[:, t] = step(states[:, t - 1], w_hh, t)
    return states


def assign_into_column(w_hh):
    states = paddle.zeros([batch, steps, features])
    for t in range(1, steps):
        column = states[:, t]
        paddle.assign(step(states[:, t - 1], w_hh, t), output=column)
    return states


def time_major_rows(w_hh):
    states = paddle.zeros([steps, batch, features])
    for t in range(1, steps):
        states[t] = step(states[t - 1], w_hh, t)
    return states.transpose([1, 0, 2])


def clone_previous(w_hh):
    states = paddle.zeros([batch, steps, features])
    for t in range(1, steps):
        states[:, t] = step(states[:, t - 1].clone(), w_hh, t)  # the matmul saves the copy
    return states


def list_then_stack(w_hh):
    columns = [paddle.zeros([batch, features])]
    for t in range(1, steps):
        columns.append(step(columns[-1], w_hh, t))
    return paddle.stack(columns, axis=1)


def decay_only(w_hh):
    states = paddle.zeros([batch, steps, features])
    for t in range(1, steps):  # multiplying by a number saves nothing
        states[:, t] = states[:, t - 1] * 0.9 + inputs[:, t] @ w_hh
    return states


def decay_reference(w_hh):
    columns = [paddle.zeros([batch, features])]
    for t in range(1, steps):
        columns.append(columns[-1] * 0.9 + inputs[:, t] @ w_hh)
    return paddle.stack(columns, axis=1)


reference = run(list_then_stack)
outcome = {}
for name, build, expected in [
    ("states[:, t] = ...", item_assignment, reference),
    ("paddle.assign(..., output=states[:, t])", assign_into_column, reference),
    ("states[t] = ... (time-major)", time_major_rows, reference),
    ("states[:, t - 1].clone() @ w_hh", clone_previous, reference),
    ("list of columns, then paddle.stack", list_then_stack, reference),
    ("states[:, t] = states[:, t - 1] * 0.9 + ...", decay_only, run(decay_reference)),
]:
    gradient = run(build)
    if isinstance(gradient, str):
        outcome[name] = gradient
    else:
        outcome[name] = (
            "correct gradient" if paddle.allclose(gradient, expected).item() else "wrong gradient"
        )
for name, result in outcome.items():
    print(f"{name:45} {result}")
