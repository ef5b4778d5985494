import torch


def train(steps, clear_grads):
    model = torch.nn.Linear(1, 1, bias=False)
    with torch.no_grad():
        model.weight.fill_(1.0)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
    x = torch.tensor([4.0])
    grads = []
    for _ in range(steps):
        if clear_grads:
            optimizer.zero_grad()
        loss = ((2 * x - model(x)) ** 2).mean()
        loss.backward()
        grads.append(round(model.weight.grad.item(), 4))
        optimizer.step()
    return grads, model.weight.item()


with_zero_grad, weight_with = train(3, clear_grads=True)
without_zero_grad, weight_without = train(3, clear_grads=False)
print("grad used by each step, with zero_grad():   ", with_zero_grad)
print("grad used by each step, without zero_grad():", without_zero_grad)
print(f"weight after 3 steps: {weight_with:.4f} with, {weight_without:.4f} without")
