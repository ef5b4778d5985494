import paddle


def skipped_window(use_multi_tensor):
    """A window of two micro-batches, the second with an inf in its gradient, stepped through a
    GradScaler, which skips the step where it is enabled. What the window leaves in the weights
    and in .grad."""
    weight = paddle.create_parameter(
        [2], "float32", default_initializer=paddle.nn.initializer.Assign([1.0, 2.0])
    )
    optimizer = paddle.optimizer.Adam(0.1, parameters=[weight], use_multi_tensor=use_multi_tensor)
    scaler = paddle.amp.GradScaler(init_loss_scaling=1024.0)
    for inputs in ([1.0, 1.0], [1.0, float("inf")]):
        loss = (weight * paddle.to_tensor(inputs)).sum()
        scaler.scale(loss).backward()
    scaler.step(optimizer)  # skipped where the scaler is enabled: the gradient is not finite
    scaler.update()
    return {
        "scaler enabled": scaler.is_enable(),
        "weight": weight.tolist(),
        "weight.grad": weight.grad.tolist(),
    }


results = {f"Adam(use_multi_tensor={multi})": skipped_window(multi) for multi in (False, True)}
for name, result in results.items():
    print(f"{name}, after the step:")
    for key, value in result.items():
        print(f"    {key}: {value}")
