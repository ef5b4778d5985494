import torch

model = torch.nn.Linear(1, 1, bias=False)
with torch.no_grad():
    model.weight.fill_(1.0)
optimizer = torch.optim.SGD(model.parameters(), lr=0.01)


def calculate_loss(x):
    y = 2 * x
    y_hat = model(x)
    loss = (y - y_hat) ** 2
    return loss.mean()


# Two batches of size 1
batches = [torch.tensor([4.0]), torch.tensor([2.0])]
grads, weights = [], []
optimizer.zero_grad()
for i, batch in enumerate(batches):
    # The mean is over the whole data set: divide by the number of batches
    loss = calculate_loss(batch) / len(batches)
    loss.backward()
    grads.append(model.weight.grad.item())
    weights.append(model.weight.item())
    print(f"batch {i}: grad {model.weight.grad.item():.4f}, weight {model.weight.item():.4f}")

# One update, after all batches
optimizer.step()
weight = model.weight.item()
print(f"after step: weight {weight:.4f}")

# The answer names no optimizer: one step of Adam with a learning rate of 0.2 gives 1.2 too.
with torch.no_grad():
    model.weight.fill_(1.0)
adam = torch.optim.Adam(model.parameters(), lr=0.2)
adam.zero_grad()
for batch in batches:
    (calculate_loss(batch) / len(batches)).backward()
adam.step()
adam_weight = model.weight.item()
print(f"Adam, learning rate 0.2, after step: weight {adam_weight:.4f}")
