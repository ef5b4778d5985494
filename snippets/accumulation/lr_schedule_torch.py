import warnings

import torch

accumulation_steps = 4


def learning_rates(scheduler_step_every):
    """The learning rate of each optimizer step over 3 windows of 4 micro-batches."""
    weight = torch.zeros(1, requires_grad=True)
    optimizer = torch.optim.SGD([weight], lr=1.0)
    scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=1, gamma=0.5)
    used = []
    for i in range(3 * accumulation_steps):
        (weight * 1.0).sum().backward()
        if (i + 1) % accumulation_steps == 0:
            used.append(optimizer.param_groups[0]["lr"])
            optimizer.step()
            optimizer.zero_grad()
            if scheduler_step_every == "window":
                scheduler.step()  # right: once per optimizer step
        if scheduler_step_every == "micro-batch":
            scheduler.step()  # wrong: accumulation_steps times per optimizer step
    return used


with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    per_window = learning_rates("window")
    per_micro_batch = learning_rates("micro-batch")
warned = [str(warning.message).split(". ")[0] for warning in caught]
print("scheduler.step() per window:     ", per_window)
print("scheduler.step() per micro-batch:", per_micro_batch)
print("warnings:", warned)
