import torch
import torch.nn.functional as F

torch.manual_seed(0)
accumulation_steps = 4
micro_batches = [(torch.randn(8, 4), torch.randn(8, 1)) for _ in range(accumulation_steps)]
OPTIMIZERS = {
    "SGD, weight_decay=0.1": lambda parameters: torch.optim.SGD(
        parameters, lr=0.01, weight_decay=0.1
    ),
    "Adam, weight_decay=0.1": lambda parameters: torch.optim.Adam(
        parameters, lr=0.01, weight_decay=0.1
    ),
    "AdamW, weight_decay=0.1": lambda parameters: torch.optim.AdamW(
        parameters, lr=0.01, weight_decay=0.1
    ),
}


def train(make_optimizer, divide, windows):
    """Run `windows` accumulation windows; the parameters before and after."""
    torch.manual_seed(1)
    model = torch.nn.Linear(4, 1)
    optimizer = make_optimizer(model.parameters())
    start = torch.cat([p.detach().flatten() for p in model.parameters()])
    for _ in range(windows):
        for inputs, targets in micro_batches:
            loss = F.mse_loss(model(inputs), targets)
            (loss / accumulation_steps if divide else loss).backward()
        optimizer.step()
        optimizer.zero_grad()
    return start, torch.cat([p.detach().flatten() for p in model.parameters()])


def compare(make_optimizer, windows=5):
    """The first update's ratio (undivided / divided); the same parameters after `windows`?"""
    start, divided = train(make_optimizer, divide=True, windows=1)
    _, not_divided = train(make_optimizer, divide=False, windows=1)
    ratio = round(((not_divided - start).norm() / (divided - start).norm()).item(), 3)
    _, divided = train(make_optimizer, divide=True, windows=windows)
    _, not_divided = train(make_optimizer, divide=False, windows=windows)
    return ratio, torch.allclose(divided, not_divided, rtol=1e-4, atol=1e-6)


outcome = {name: compare(make) for name, make in OPTIMIZERS.items()}
for name, (ratio, same) in outcome.items():
    print(f"{name:24} first update {ratio:g} times larger, same after 5 windows: {same}")
