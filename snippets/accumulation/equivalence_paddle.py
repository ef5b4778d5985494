import paddle


def mean_square(output):
    return output.square().mean()  # a mean over the samples: splits into micro-batches


def batch_variance(output):
    return output.var()  # looks across the samples of the batch


def max_grad_difference(model, batch, loss_of=mean_square, accumulation_steps=4):
    """Largest gap between full-batch and accumulated gradients over all parameters."""
    # BatchNorm1D keeps its running mean and variance as parameters with stop_gradient=True
    trainable = [p for p in model.parameters() if not p.stop_gradient]
    model.clear_gradients()
    loss_of(model(batch)).backward()
    full_batch = [p.grad.clone() for p in trainable]
    model.clear_gradients()
    for micro_batch in batch.chunk(accumulation_steps):
        (loss_of(model(micro_batch)) / accumulation_steps).backward()
    return max((p.grad - g).abs().max().item() for p, g in zip(trainable, full_batch, strict=True))


def mlp(dtype, normalization=None, training=True):
    paddle.seed(0)
    layers = [paddle.nn.Linear(16, 32)]
    if normalization == "BatchNorm":
        layers.append(paddle.nn.BatchNorm1D(32))  # training mode: statistics over the batch it sees
    elif normalization == "LayerNorm":
        layers.append(paddle.nn.LayerNorm(32))  # statistics over each sample's own features
    layers += [paddle.nn.Tanh(), paddle.nn.Linear(32, 1)]
    model = paddle.nn.Sequential(*layers).to(dtype=dtype)
    if not training:
        model.eval()  # BatchNorm then uses its running statistics
    return model


paddle.seed(0)
batch = paddle.randn([64, 16], dtype="float64")
differences = {
    "float32": max_grad_difference(mlp("float32"), batch.astype("float32")),
    "float64": max_grad_difference(mlp("float64"), batch),
    "float64 + BatchNorm": max_grad_difference(mlp("float64", "BatchNorm"), batch),
    "float64 + LayerNorm": max_grad_difference(mlp("float64", "LayerNorm"), batch),
    "float64 + BatchNorm, eval mode": max_grad_difference(
        mlp("float64", "BatchNorm", False), batch
    ),
    "float64, loss over the batch": max_grad_difference(mlp("float64"), batch, batch_variance),
}
for name, difference in differences.items():
    print(f"{name:30} max abs difference {difference:.3g}")
