import torch

torch.manual_seed(0)
model = torch.nn.Linear(8, 1)
optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
batches = [(torch.randn(4, 8), torch.randn(4, 1)) for _ in range(10)]
accumulation_steps = 4


def calculate_loss(batch):
    inputs, targets = batch
    return torch.nn.functional.mse_loss(model(inputs), targets)


stepped_at = []
for epoch in range(2):
    for i, batch in enumerate(batches):
        loss = calculate_loss(batch) / accumulation_steps
        loss.backward()
        if (i + 1) % accumulation_steps == 0 or i + 1 == len(batches):
            optimizer.step()
            optimizer.zero_grad()
            stepped_at.append((epoch, i))
print("optimizer steps after (epoch, batch):", stepped_at)
