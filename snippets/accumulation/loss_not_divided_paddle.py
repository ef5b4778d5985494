import paddle
import paddle.nn.functional as F

paddle.seed(0)
accumulation_steps = 4
micro_batches = [(paddle.randn([8, 4]), paddle.randn([8, 1])) for _ in range(accumulation_steps)]
OPTIMIZERS = {
    "SGD": paddle.optimizer.SGD,
    "Momentum 0.9": lambda *args, **kwargs: paddle.optimizer.Momentum(
        *args, momentum=0.9, **kwargs
    ),
    "Adam": paddle.optimizer.Adam,
    "AdamW": paddle.optimizer.AdamW,
}


def train(optimizer_class, divide, windows=1, clip_norm=None):
    """Run `windows` accumulation windows; the parameters before and after, and the last norm."""
    paddle.seed(1)
    model = paddle.nn.Linear(4, 1)
    grad_clip = paddle.nn.ClipGradByGlobalNorm(clip_norm) if clip_norm else None
    optimizer = optimizer_class(0.01, parameters=model.parameters(), grad_clip=grad_clip)
    start = paddle.concat([p.detach().flatten() for p in model.parameters()])
    for _ in range(windows):
        for inputs, targets in micro_batches:
            loss = F.mse_loss(model(inputs), targets)
            (loss / accumulation_steps if divide else loss).backward()
        norm = paddle.sqrt(sum((p.grad**2).sum() for p in model.parameters()))
        optimizer.step()
        optimizer.clear_grad()
    return start, paddle.concat([p.detach().flatten() for p in model.parameters()]), norm.item()


def update_ratio(optimizer_class, clip_norm=None):
    """How many times larger the first update is when the loss is not divided."""
    start, divided, _ = train(optimizer_class, divide=True, clip_norm=clip_norm)
    _, not_divided, _ = train(optimizer_class, divide=False, clip_norm=clip_norm)
    return round(((not_divided - start).norm() / (divided - start).norm()).item(), 3)


def same_after(optimizer_class, windows=5):
    """Do divided and undivided losses reach the same parameters after `windows` steps?"""
    _, divided, _ = train(optimizer_class, divide=True, windows=windows)
    _, not_divided, _ = train(optimizer_class, divide=False, windows=windows)
    return paddle.allclose(divided, not_divided, rtol=1e-4, atol=1e-6).item()


sgd = OPTIMIZERS["SGD"]
_, _, norm = train(sgd, divide=True)  # the norm of one window's gradient, loss divided
ratios = {name: update_ratio(optimizer_class) for name, optimizer_class in OPTIMIZERS.items()}
ratios["SGD, clipped both ways"] = update_ratio(sgd, clip_norm=norm / 2)
ratios["SGD, clipped only undivided"] = update_ratio(sgd, clip_norm=norm * 2)
ratios["SGD, never clipped"] = update_ratio(sgd, clip_norm=norm * 8)
same_parameters = {
    name: same_after(optimizer_class) for name, optimizer_class in OPTIMIZERS.items()
}
for name, ratio in ratios.items():
    print(f"{name:28} first update {ratio:g} times larger")
for name, same in same_parameters.items():
    print(f"{name:28} same parameters after 5 windows: {same}")
