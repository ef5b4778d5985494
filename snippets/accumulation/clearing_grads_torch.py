import torch

model = torch.nn.Linear(2, 1)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)


def grad_left_by(clear):
    model(torch.ones(1, 2)).sum().backward()
    clear()
    grad = model.weight.grad
    return "None" if grad is None else f"zeros {list(grad.shape)}" if not grad.any() else "values"


left_behind = {
    "optimizer.zero_grad()": grad_left_by(optimizer.zero_grad),
    "optimizer.zero_grad(set_to_none=False)": grad_left_by(
        lambda: optimizer.zero_grad(set_to_none=False)
    ),
    "model.zero_grad()": grad_left_by(model.zero_grad),
}
for call, grad in left_behind.items():
    print(f"{call:40} -> weight.grad is {grad}")
