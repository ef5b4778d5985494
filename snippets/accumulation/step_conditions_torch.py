import torch

accumulation_steps = 4
batches = [torch.ones(1) for _ in range(10)]  # every batch adds exactly 1 to the unscaled gradient
weight = torch.zeros(1, requires_grad=True)
optimizer = torch.optim.SGD([weight], lr=0.1)


def gradient_at_step():
    """1.0 when the step sees the mean gradient of a full window of accumulation_steps batches."""
    return 0.0 if weight.grad is None else weight.grad.item()


def steps_taken(loop):
    """Run one epoch of `loop`; for each step, the batch index and the gradient it used."""
    steps = []
    optimizer.zero_grad()
    loop(lambda i: steps.append([i, gradient_at_step()]))
    return steps


def plus_one(record):
    for i, batch in enumerate(batches):
        loss = (weight * batch).mean() / accumulation_steps
        loss.backward()
        if (i + 1) % accumulation_steps == 0:
            record(i)
            optimizer.step()
            optimizer.zero_grad()


def start_at_one(record):
    for i, batch in enumerate(batches, start=1):
        loss = (weight * batch).mean() / accumulation_steps
        loss.backward()
        if i % accumulation_steps == 0:
            record(i - 1)
            optimizer.step()
            optimizer.zero_grad()


def zero_based(record):
    for i, batch in enumerate(batches):
        loss = (weight * batch).mean() / accumulation_steps
        loss.backward()
        if i % accumulation_steps == 0:  # true for i = 0: a step after the first batch alone
            record(i)
            optimizer.step()
            optimizer.zero_grad()


def answers(record):
    for i, batch in enumerate(batches):
        loss = (weight * batch).mean() / accumulation_steps
        loss.backward()
        if (i - 1) % accumulation_steps == 0:
            record(i)
            optimizer.step()
            optimizer.zero_grad()


def cleared_every_batch(record):
    for i, batch in enumerate(batches):
        optimizer.zero_grad()  # from a loop without accumulation: drops the window
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
            optimizer.zero_grad()  # the two calls swapped
            record(i)
            optimizer.step()


def flushed(record):
    for i, batch in enumerate(batches):
        loss = (weight * batch).mean() / accumulation_steps
        loss.backward()
        if (i + 1) % accumulation_steps == 0 or i + 1 == len(batches):
            record(i)
            optimizer.step()
            optimizer.zero_grad()


CONDITIONS = {
    "(i + 1) % k == 0": plus_one,
    "enumerate(start=1), i % k == 0": start_at_one,
    "i % k == 0": zero_based,
    "(i - 1) % k == 0": answers,
    "zero_grad() every batch": cleared_every_batch,
    "zero_grad() before step()": cleared_before_step,
    "(i + 1) % k == 0 or last batch": flushed,
}
outcome = {name: steps_taken(loop) for name, loop in CONDITIONS.items()}
for name, steps in outcome.items():
    print(f"{name:32}", ", ".join(f"i={i}: {grad:g}" for i, grad in steps))
