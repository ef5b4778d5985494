import paddle

accumulation_steps = 4
batches = [
    paddle.ones([1]) for _ in range(10)
]  # every batch adds exactly 1 to the unscaled gradient
weight = paddle.zeros([1])
weight.stop_gradient = False
optimizer = paddle.optimizer.SGD(0.1, parameters=[weight])


def gradient_at_step():
    """1.0 when the step sees the mean gradient of a full window of accumulation_steps batches."""
    return 0.0 if weight.grad is None else weight.grad.item()


def steps_taken(loop):
    """Run one epoch of `loop`; for each step, the batch index and the gradient it used."""
    steps = []
    optimizer.clear_grad()
    loop(lambda i: steps.append([i, gradient_at_step()]))
    return steps


def plus_one(record):
    for i, batch in enumerate(batches):
        loss = (weight * batch).mean() / accumulation_steps
        loss.backward()
        if (i + 1) % accumulation_steps == 0:
            record(i)
            optimizer.step()
            optimizer.clear_grad()


def start_at_one(record):
    for i, batch in enumerate(batches, start=1):
        loss = (weight * batch).mean() / accumulation_steps
        loss.backward()
        if i % accumulation_steps == 0:
            record(i - 1)
            optimizer.step()
            optimizer.clear_grad()


def zero_based(record):
    for i, batch in enumerate(batches):
        loss = (weight * batch).mean() / accumulation_steps
        loss.backward()
        if i % accumulation_steps == 0:  # true for i = 0: a step after the first batch alone
            record(i)
            optimizer.step()
            optimizer.clear_grad()


def answers(record):
    for i, batch in enumerate(batches):
        loss = (weight * batch).mean() / accumulation_steps
        loss.backward()
        if (i - 1) % accumulation_steps == 0:
            record(i)
            optimizer.step()
            optimizer.clear_grad()


def cleared_every_batch(record):
    for i, batch in enumerate(batches):
        optimizer.clear_grad()  # from a loop without accumulation: drops the window
        loss = (weight * batch).mean() / accumulation_steps
        loss.backward()
        if (i + 1) % accumulation_steps == 0:
            record(i)
            optimizer.step()


def cleared_before_step(record):
    for i, batch in enumerate(batches):
        loss = (weight * batch).mean() / accumulation_steps
        loss.backward()
        if (i + 1) % accumulation_steps == 0:
            optimizer.clear_grad()  # the two calls swapped
            record(i)
            optimizer.step()


def flushed(record):
    for i, batch in enumerate(batches):
        loss = (weight * batch).mean() / accumulation_steps
        loss.backward()
        if (i + 1) % accumulation_steps == 0 or i + 1 == len(batches):
            record(i)
            optimizer.step()
            optimizer.clear_grad()


CONDITIONS = {
    "(i + 1) % k == 0": plus_one,
    "enumerate(start=1), i % k == 0": start_at_one,
    "i % k == 0": zero_based,
    "(i - 1) % k == 0": answers,
    "clear_grad() every batch": cleared_every_batch,
    "clear_grad() before step()": cleared_before_step,
    "(i + 1) % k == 0 or last batch": flushed,
}
outcome = {name: steps_taken(loop) for name, loop in CONDITIONS.items()}
for name, steps in outcome.items():
    print(f"{name:32}", ", ".join(f"i={i}: {grad:g}" for i, grad in steps))
