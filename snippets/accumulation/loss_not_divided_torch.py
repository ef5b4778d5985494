import torch
import torch.nn.functional as F

torch.manual_seed(0)
accumulation_steps = 4
micro_batches = [(torch.randn(8, 4), torch.randn(8, 1)) for _ in range(accumulation_steps)]
OPTIMIZERS = {
    "SGD": lambda parameters: torch.optim.SGD(parameters, lr=0.01),
    "SGD, momentum 0.9": lambda parameters: torch.optim.SGD(parameters, lr=0.01, momentum=0.9),
    "Adam": lambda parameters: torch.optim.Adam(parameters, lr=0.01),
    "AdamW": lambda parameters: torch.optim.AdamW(parameters, lr=0.01),
}


def train(make_optimizer, divide, windows=1, max_norm=None):
    """Run `windows` accumulation windows; the parameters before and after, and the last norm."""
    torch.manual_seed(1)
    model = torch.nn.Linear(4, 1)
    optimizer = make_optimizer(model.parameters())
    start = torch.cat([p.detach().flatten() for p in model.parameters()])
    for _ in range(windows):
        for inputs, targets in micro_batches:
            loss = F.mse_loss(model(inputs), targets)
            (loss / accumulation_steps if divide else loss).backward()
        norm = torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm or float("inf"))
        optimizer.step()
        optimizer.zero_grad()
    return start, torch.cat([p.detach().flatten() for p in model.parameters()]), norm.item()


def update_ratio(make_optimizer, max_norm=None):
    """How many times larger the first update is when the loss is not divided."""
    start, divided, _ = train(make_optimizer, divide=True, max_norm=max_norm)
    _, not_divided, _ = train(make_optimizer, divide=False, max_norm=max_norm)
    return round(((not_divided - start).norm() / (divided - start).norm()).item(), 3)


def same_after(make_optimizer, windows=5):
    """Do divided and undivided losses reach the same parameters after `windows` steps?"""
    _, divided, _ = train(make_optimizer, divide=True, windows=windows)
    _, not_divided, _ = train(make_optimizer, divide=False, windows=windows)
    return torch.allclose(divided, not_divided, rtol=1e-4, atol=1e-6)


sgd = OPTIMIZERS["SGD"]
_, _, norm = train(sgd, divide=True)  # the norm of one window's gradient, loss divided
ratios = {name: update_ratio(make) for name, make in OPTIMIZERS.items()}
ratios["SGD, clipped both ways"] = update_ratio(sgd, max_norm=norm / 2)
ratios["SGD, clipped only undivided"] = update_ratio(sgd, max_norm=norm * 2)
ratios["SGD, never clipped"] = update_ratio(sgd, max_norm=norm * 8)
same_parameters = {name: same_after(make) for name, make in OPTIMIZERS.items()}
for name, ratio in ratios.items():
    print(f"{name:28} first update {ratio:g} times larger")
for name, same in same_parameters.items():
    print(f"{name:28} same parameters after 5 windows: {same}")
