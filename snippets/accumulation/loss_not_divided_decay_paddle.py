import paddle
import paddle.nn.functional as F

paddle.seed(0)
accumulation_steps = 4
micro_batches = [(paddle.randn([8, 4]), paddle.randn([8, 1])) for _ in range(accumulation_steps)]
OPTIMIZERS = {
    "SGD, weight_decay=0.1": paddle.optimizer.SGD,
    "Adam, weight_decay=0.1": paddle.optimizer.Adam,
    "AdamW, weight_decay=0.1": paddle.optimizer.AdamW,
}


def train(optimizer_class, divide, windows):
    """Run `windows` accumulation windows; the parameters before and after."""
    paddle.seed(1)
    model = paddle.nn.Linear(4, 1)
    optimizer = optimizer_class(0.01, parameters=model.parameters(), weight_decay=0.1)
    start = paddle.concat([p.detach().flatten() for p in model.parameters()])
    for _ in range(windows):
        for inputs, targets in micro_batches:
            loss = F.mse_loss(model(inputs), targets)
            (loss / accumulation_steps if divide else loss).backward()
        optimizer.step()
        optimizer.clear_grad()
    return start, paddle.concat([p.detach().flatten() for p in model.parameters()])


def compare(optimizer_class, windows=5):
    """The first update's ratio (undivided / divided); the same parameters after `windows`?"""
    start, divided = train(optimizer_class, divide=True, windows=1)
    _, not_divided = train(optimizer_class, divide=False, windows=1)
    ratio = round(((not_divided - start).norm() / (divided - start).norm()).item(), 3)
    _, divided = train(optimizer_class, divide=True, windows=windows)
    _, not_divided = train(optimizer_class, divide=False, windows=windows)
    return ratio, paddle.allclose(divided, not_divided, rtol=1e-4, atol=1e-6).item()


outcome = {name: compare(optimizer_class) for name, optimizer_class in OPTIMIZERS.items()}
for name, (ratio, same) in outcome.items():
    print(f"{name:24} first update {ratio:g} times larger, same after 5 windows: {same}")
