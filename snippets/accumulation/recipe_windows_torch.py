import torch

accumulation_steps = 4
batches = [torch.ones(1) for _ in range(10)]  # 10 batches: two full windows and two left over
weight = torch.zeros(1, requires_grad=True)
optimizer = torch.optim.SGD([weight], lr=0.1)


def calculate_loss(batch):
    return (weight * batch).mean()  # every batch adds exactly 1 to the unscaled gradient


def train(should_step, k=accumulation_steps, epochs=2):
    """The answer's recipe with windows of k batches; records (epoch, i, gradient) at every step."""
    steps = []
    optimizer.zero_grad()
    for epoch in range(epochs):
        for i, batch in enumerate(batches):
            loss = calculate_loss(batch) / k
            loss.backward()
            if should_step(i, k):
                steps.append([epoch, i, weight.grad.item()])
                optimizer.step()
                optimizer.zero_grad()
    return steps


def answers_condition(i, k):
    return (i - 1) % k == 0


def correct_condition(i, k):
    return (i + 1) % k == 0


def flushed_condition(i, k):
    return (i + 1) % k == 0 or i + 1 == len(batches)


# A gradient of 1.0 at a step is the mean over a full window of k batches.
answers = train(answers_condition)
correct = train(correct_condition)
flushed = train(flushed_condition)
for name, steps in {
    "(i - 1) % 4 == 0": answers,
    "(i + 1) % 4 == 0": correct,
    "... or last batch": flushed,
}.items():
    print(f"{name:18}", ", ".join(f"epoch {e} i={i}: {grad:g}" for e, i, grad in steps))

# Where the two conditions step in one epoch, with other window sizes
steps_at = {}
for k in (2, 3, 4):
    answers_at = [i for _, i, _ in train(answers_condition, k, epochs=1)]
    correct_at = [i for _, i, _ in train(correct_condition, k, epochs=1)]
    steps_at[k] = [answers_at, correct_at]
    print(f"k = {k}: (i - 1) % k == 0 steps at i = {answers_at}, (i + 1) % k == 0 at {correct_at}")
