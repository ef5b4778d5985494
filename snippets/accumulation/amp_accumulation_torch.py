import torch
import torch.nn.functional as F

torch.manual_seed(0)
model = torch.nn.Linear(64, 1)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
device_type = torch.get_default_device().type  # "cuda" or "cpu": autocast and GradScaler need it
scaler = torch.amp.GradScaler(device_type)
accumulation_steps = 4
samples = torch.randn(32, 64)
targets = torch.randn(32, 1)

# Reference: the float32 gradient of the whole batch.
F.mse_loss(model(samples), targets).backward()
full_batch_grad = model.weight.grad.clone()
optimizer.zero_grad()

for micro_batch, target in zip(
    samples.chunk(accumulation_steps), targets.chunk(accumulation_steps), strict=True
):
    with torch.autocast(device_type, dtype=torch.float16):
        prediction = model(micro_batch)
        loss = F.mse_loss(prediction.float(), target) / accumulation_steps
    scaler.scale(loss).backward()  # every micro-batch is multiplied by the same scale

scaled_grad = model.weight.grad.clone()
scaler.unscale_(optimizer)  # once per window, right before clipping or stepping
scale = scaler.get_scale()
scale_in_grad = (scaled_grad.abs().max() / model.weight.grad.abs().max()).item()
max_error = (model.weight.grad - full_batch_grad).abs().max().item()
scaler.step(optimizer)
scaler.update()
optimizer.zero_grad()
print(f"model output under autocast: {prediction.dtype}")
print(f"GradScaler enabled: {scaler.is_enabled()}, scale {scale:g}")
print(f"after unscale_: max abs error to the float32 grad {max_error:.2g}")
print(f"grad before unscale_ / grad after: {scale_in_grad:g}")
