import paddle
import paddle.nn.functional as F

paddle.seed(0)
model = paddle.nn.Linear(64, 1)
optimizer = paddle.optimizer.SGD(learning_rate=0.1, parameters=model.parameters())
scaler = paddle.amp.GradScaler()
accumulation_steps = 4
samples = paddle.randn([32, 64])
targets = paddle.randn([32, 1])

# Reference: the float32 gradient of the whole batch.
F.mse_loss(model(samples), targets).backward()
full_batch_grad = model.weight.grad.clone()
optimizer.clear_grad()

for micro_batch, target in zip(
    samples.chunk(accumulation_steps), targets.chunk(accumulation_steps), strict=True
):
    with paddle.amp.auto_cast(dtype="float16"):
        prediction = model(micro_batch)
        loss = F.mse_loss(prediction.astype("float32"), target) / accumulation_steps
    scaler.scale(loss).backward()  # every micro-batch is multiplied by the same scale

scaled_grad = model.weight.grad.clone()
scaler.unscale_(optimizer)  # once per window, right before clipping or stepping
scale = scaler.get_init_loss_scaling()  # no overflow yet: still the initial scale
scale_in_grad = (scaled_grad.abs().max() / model.weight.grad.abs().max()).item()
max_error = (model.weight.grad - full_batch_grad).abs().max().item()
scaler.step(optimizer)
scaler.update()
optimizer.clear_grad()
print(f"model output under auto_cast: {prediction.dtype}")
print(f"GradScaler enabled: {scaler.is_enable()}, scale {scale:g}")
print(f"after unscale_: max abs error to the float32 grad {max_error:.2g}")
print(f"grad before unscale_ / grad after: {scale_in_grad:g}")
