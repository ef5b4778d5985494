import torch

accumulation_steps = 4
batches = [torch.ones(1) for _ in range(10)]  # 10 batches: two full windows and two left over
weight = torch.zeros(1, requires_grad=True)
optimizer = torch.optim.SGD([weight], lr=0.1)


def calculate_loss(batch):
    return (weight * batch).mean()  # every batch adds exactly 1 to the unscaled gradient


def train(should_step, epochs=2):
    """The seed's recipe; records (epoch, i, gradient) at every optimizer step."""
    steps = []
    optimizer.zero_grad()
    for epoch in range(epochs):
        for i, batch in enumerate(batches):
            loss = calculate_loss(batch) / accumulation_steps
            loss.backward()
            if should_step(i):
                steps.append([epoch, i, weight.grad.item()])
                optimizer.step()
                optimizer.zero_grad()
    return steps


# A gradient of 1.0 at a step is the mean over a full window of 4 batches.
seed = train(lambda i: (i - 1) % accumulation_steps == 0)
correct = train(lambda i: (i + 1) % accumulation_steps == 0)
flushed = train(lambda i: (i + 1) % accumulation_steps == 0 or i + 1 == len(batches))
for name, steps in {
    "(i - 1) % 4 == 0": seed,
    "(i + 1) % 4 == 0": correct,
    "... or last batch": flushed,
}.items():
    print(f"{name:18}", ", ".join(f"epoch {e} i={i}: {grad:g}" for e, i, grad in steps))
