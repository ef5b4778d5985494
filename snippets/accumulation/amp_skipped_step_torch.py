import torch

device_type = torch.get_default_device().type  # "cuda" or "cpu": GradScaler needs it


def skipped_window(fused, unscale_first):
    """A window of two micro-batches, the second with an inf in its gradient, stepped through a
    GradScaler: the step is skipped. What the window leaves in the weights and in .grad."""
    weight = torch.nn.Parameter(torch.tensor([1.0, 2.0], device=device_type))
    optimizer = torch.optim.Adam([weight], lr=0.1, fused=fused)
    scaler = torch.amp.GradScaler(device_type, init_scale=1024.0)
    for inputs in ([1.0, 1.0], [1.0, float("inf")]):
        loss = (weight * torch.tensor(inputs, device=device_type)).sum()
        scaler.scale(loss).backward()  # .grad holds the sum times the scale
    if unscale_first:
        scaler.unscale_(optimizer)  # as in the window above: unscale_, clip, step, update
    scaler.step(optimizer)  # skipped: the window's gradient is not finite
    scaler.update()  # halves the scale
    return {
        "weight": weight.tolist(),
        "weight.grad": weight.grad.tolist(),
        "scale": scaler.get_scale(),
    }


results = {
    f"Adam(fused={fused})" + (", unscale_ first" if unscale_first else ""): skipped_window(
        fused, unscale_first
    )
    for fused in (False, True)
    for unscale_first in (False, True)
}
for name, result in results.items():
    print(f"{name}, after the skipped step:")
    for key, value in result.items():
        print(f"    {key}: {value}")
