import torch

model = torch.nn.Linear(2, 1)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)


def describe(grad):
    return "None" if grad is None else f"zeros {list(grad.shape)}" if not grad.any() else "values"


before_any_backward = describe(model.weight.grad)


def grad_left_by(clear):
    model(torch.ones(1, 2)).sum().backward()
    clear()
    return describe(model.weight.grad)


left_behind = {
    "optimizer.zero_grad()": grad_left_by(optimizer.zero_grad),
    "optimizer.zero_grad(set_to_none=False)": grad_left_by(
        lambda: optimizer.zero_grad(set_to_none=False)
    ),
    "model.zero_grad()": grad_left_by(model.zero_grad),
}
print(f"{'before any backward':40} -> weight.grad is {before_any_backward}")
for call, grad in left_behind.items():
    print(f"{call:40} -> weight.grad is {grad}")
