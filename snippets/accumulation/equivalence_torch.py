import torch


def mean_square(output):
    return output.square().mean()  # a mean over the samples: splits into micro-batches


def batch_variance(output):
    return output.var()  # looks across the samples of the batch


def max_grad_difference(model, batch, loss_of=mean_square, accumulation_steps=4):
    """Largest gap between full-batch and accumulated gradients over all parameters."""
    model.zero_grad()
    loss_of(model(batch)).backward()
    full_batch = [p.grad.clone() for p in model.parameters()]
    model.zero_grad()
    for micro_batch in batch.chunk(accumulation_steps):
        (loss_of(model(micro_batch)) / accumulation_steps).backward()
    return max(
        (p.grad - g).abs().max().item() for p, g in zip(model.parameters(), full_batch, strict=True)
    )


def mlp(dtype, normalization=None, training=True):
    torch.manual_seed(0)
    layers = [torch.nn.Linear(16, 32)]
    if normalization == "BatchNorm":
        layers.append(torch.nn.BatchNorm1d(32))  # training mode: statistics over the batch it sees
    elif normalization == "LayerNorm":
        layers.append(torch.nn.LayerNorm(32))  # statistics over each sample's own features
    layers += [torch.nn.Tanh(), torch.nn.Linear(32, 1)]
    model = torch.nn.Sequential(*layers).to(dtype)
    if not training:
        model.eval()  # BatchNorm then uses its running statistics
    return model


batch = torch.randn(64, 16, dtype=torch.float64)
differences = {
    "float32": max_grad_difference(mlp(torch.float32), batch.float()),
    "float64": max_grad_difference(mlp(torch.float64), batch),
    "float64 + BatchNorm": max_grad_difference(mlp(torch.float64, "BatchNorm"), batch),
    "float64 + LayerNorm": max_grad_difference(mlp(torch.float64, "LayerNorm"), batch),
    "float64 + BatchNorm, eval mode": max_grad_difference(
        mlp(torch.float64, "BatchNorm", False), batch
    ),
    "float64, loss over the batch": max_grad_difference(mlp(torch.float64), batch, batch_variance),
}
for name, difference in differences.items():
    print(f"{name:30} max abs difference {difference:.3g}")
