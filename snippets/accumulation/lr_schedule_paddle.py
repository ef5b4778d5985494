import warnings

import paddle

accumulation_steps = 4


def learning_rates(scheduler_step_every):
    """The learning rate of each optimizer step over 3 windows of 4 micro-batches."""
    weight = paddle.create_parameter(
        [1], "float32", default_initializer=paddle.nn.initializer.Constant(0.0)
    )
    scheduler = paddle.optimizer.lr.StepDecay(learning_rate=1.0, step_size=1, gamma=0.5)
    optimizer = paddle.optimizer.SGD(learning_rate=scheduler, parameters=[weight])
    used = []
    for i in range(3 * accumulation_steps):
        (weight * 1.0).sum().backward()
        if (i + 1) % accumulation_steps == 0:
            used.append(optimizer.get_lr())
            optimizer.step()
            optimizer.clear_grad()
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
