import warnings

import paddle
import paddle.nn.functional as F

accumulation_steps = 4
paddle.seed(0)
samples = paddle.randn([16, 8])
targets = paddle.randn([16, 1])


def current_scale(scaler):
    # A disabled scaler (on CPU) scales nothing, and its state_dict() is empty.
    return float(scaler.state_dict()["scale"][0]) if scaler.is_enable() else 1.0


def train(windows, clip="after unscale_"):
    """Accumulation windows with float16 auto_cast, a GradScaler and an LR scheduler.
    `windows` gives, per window, the micro-batch to make non-finite (or None)."""
    paddle.seed(0)
    model = paddle.nn.Linear(8, 1)
    scheduler = paddle.optimizer.lr.StepDecay(learning_rate=0.1, step_size=1, gamma=0.5)
    optimizer = paddle.optimizer.SGD(learning_rate=scheduler, parameters=model.parameters())
    scaler = paddle.amp.GradScaler()
    for non_finite in windows:
        weight_before = model.weight.clone()
        micro_batches = zip(
            samples.chunk(accumulation_steps), targets.chunk(accumulation_steps), strict=True
        )
        for i, (micro_batch, target) in enumerate(micro_batches):
            if i == non_finite:
                micro_batch = paddle.full_like(micro_batch, float("inf"))  # one bad micro-batch
            with paddle.amp.auto_cast(dtype="float16"):
                loss = F.mse_loss(model(micro_batch).astype("float32"), target) / accumulation_steps
            scaler.scale(loss).backward()
        if clip == "before unscale_":  # wrong: measures the norm of the scaled gradient
            paddle.nn.utils.clip_grad_norm_(model.parameters(), max_norm=1.0)
        scaler.unscale_(optimizer)  # once per window
        if clip == "after unscale_":
            paddle.nn.utils.clip_grad_norm_(model.parameters(), max_norm=1.0)
        scale = current_scale(scaler)
        scaler.step(optimizer)  # skipped if any gradient of the window is inf or NaN
        scaler.update()  # lowers the scale after a skipped step
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            scheduler.step()  # once per optimizer step, skipped or not
        optimizer.clear_grad()
    return {  # what the last window did
        "weight_changed": not bool(paddle.equal_all(model.weight, weight_before)),
        "update_norm": (model.weight - weight_before).norm().item(),
        "weight_finite": bool(paddle.isfinite(model.weight).all()),
        "scale": [scale, current_scale(scaler)],
        "lr_after": optimizer.get_lr(),
        "warnings": [str(warning.message).split(". ")[0] for warning in caught],
    }


def unscale_every_micro_batch():
    model = paddle.nn.Linear(8, 1)
    optimizer = paddle.optimizer.SGD(learning_rate=0.1, parameters=model.parameters())
    scaler = paddle.amp.GradScaler()
    try:
        for micro_batch in samples.chunk(accumulation_steps):
            with paddle.amp.auto_cast(dtype="float16"):
                loss = model(micro_batch).astype("float32").square().mean()
            scaler.scale(loss).backward()
            scaler.unscale_(optimizer)  # wrong: once per window, not per micro-batch
    except RuntimeError as error:
        if "unscale_() has already been called" not in str(error):
            raise
        return str(error)
    return "no error"


with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    scaler_enabled = paddle.amp.GradScaler().is_enable()  # False on CPU, with a warning
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
