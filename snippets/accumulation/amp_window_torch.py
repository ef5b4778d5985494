import warnings

import torch
import torch.nn.functional as F

device_type = torch.get_default_device().type  # "cuda" or "cpu": autocast and GradScaler need it
accumulation_steps = 4
torch.manual_seed(0)
samples = torch.randn(16, 8)
targets = torch.randn(16, 1)


def train(windows, clip="after unscale_"):
    """Accumulation windows with float16 autocast, a GradScaler and an LR scheduler.
    `windows` gives, per window, the micro-batch to make non-finite (or None)."""
    torch.manual_seed(0)
    model = torch.nn.Linear(8, 1)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=1, gamma=0.5)
    scaler = torch.amp.GradScaler(device_type)
    for non_finite in windows:
        weight_before = model.weight.detach().clone()
        micro_batches = zip(
            samples.chunk(accumulation_steps), targets.chunk(accumulation_steps), strict=True
        )
        for i, (micro_batch, target) in enumerate(micro_batches):
            if i == non_finite:
                micro_batch = torch.full_like(micro_batch, float("inf"))  # one bad micro-batch
            with torch.autocast(device_type, dtype=torch.float16):
                loss = F.mse_loss(model(micro_batch).float(), target) / accumulation_steps
            scaler.scale(loss).backward()
        if clip == "before unscale_":  # wrong: measures the norm of the scaled gradient
            torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm=1.0)
        scaler.unscale_(optimizer)  # once per window
        if clip == "after unscale_":
            torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm=1.0)
        scale = scaler.get_scale()
        scaler.step(optimizer)  # skipped if any gradient of the window is inf or NaN
        scaler.update()  # lowers the scale after a skipped step
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            scheduler.step()  # once per optimizer step, skipped or not
        optimizer.zero_grad()
    return {  # what the last window did
        "weight_changed": not torch.equal(model.weight.detach(), weight_before),
        "update_norm": (model.weight.detach() - weight_before).norm().item(),
        "weight_finite": bool(torch.isfinite(model.weight).all()),
        "scale": [scale, scaler.get_scale()],
        "lr_after": optimizer.param_groups[0]["lr"],
        "warnings": [str(warning.message).split(". ")[0] for warning in caught],
    }


def unscale_every_micro_batch():
    model = torch.nn.Linear(8, 1)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    scaler = torch.amp.GradScaler(device_type)
    try:
        for micro_batch in samples.chunk(accumulation_steps):
            with torch.autocast(device_type, dtype=torch.float16):
                loss = model(micro_batch).float().square().mean()
            scaler.scale(loss).backward()
            scaler.unscale_(optimizer)  # wrong: once per window, not per micro-batch
    except RuntimeError as error:
        if "unscale_() has already been called" not in str(error):
            raise
        return str(error)
    return "no error"


with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    scaler_enabled = torch.amp.GradScaler(device_type).is_enabled()  # True on CPU too
scaler_warnings = [str(warning.message) for warning in caught]
results = {
    "clean window": train([None]),
    "micro-batch 3 of 4 non-finite": train([2]),
    "the same, after a clean window": train([None, 2]),
    "clipped before unscale_": train([None], clip="before unscale_"),
}
print("GradScaler enabled:", scaler_enabled, scaler_warnings)
for name, result in results.items():
    before, after = result["scale"]
    print(
        f"{name:31} weight changed {result['weight_changed']!s:5}  update {result['update_norm']:.3g}  "
        f"scale {before:g} -> {after:g}  lr {result['lr_after']:g}  warnings {result['warnings']}"
    )
print("unscale_ on every micro-batch:", unscale_every_micro_batch())
