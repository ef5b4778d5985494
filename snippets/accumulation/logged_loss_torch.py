import torch
import torch.nn.functional as F

torch.manual_seed(0)
accumulation_steps = 4
micro_batches = [(torch.randn(8, 4), torch.randn(8, 1)) for _ in range(accumulation_steps)]
model = torch.nn.Linear(4, 1)

logged = []  # loss.item() taken before the division: each micro-batch's loss
logged_divided = []  # taken after it: what the loss passed to backward() shows
for inputs, targets in micro_batches:
    loss = F.mse_loss(model(inputs), targets)
    logged.append(loss.item())
    loss = loss / accumulation_steps
    logged_divided.append(loss.item())
    loss.backward()
accumulated = model.weight.grad.clone()

# the same samples as one batch, as a run without accumulation computes and logs them
model.zero_grad()
big_batch_loss = F.mse_loss(
    model(torch.cat([x for x, _ in micro_batches])), torch.cat([y for _, y in micro_batches])
)
big_batch_loss.backward()
big_batch_loss = big_batch_loss.item()

window_mean = sum(logged) / accumulation_steps
mean_of_divided = sum(logged_divided) / accumulation_steps
print(f"loss of the window as one batch:       {big_batch_loss:.6f}")
print(f"mean of the losses logged before /k:   {window_mean:.6f}")
print(f"sum of the losses logged after /k:     {sum(logged_divided):.6f}")
print(f"mean of the losses logged after /k:    {mean_of_divided:.6f}")
print(f"last micro-batch, before / after /k:   {logged[-1]:.6f} / {logged_divided[-1]:.6f}")
same_gradient = torch.allclose(accumulated, model.weight.grad)
print("accumulated gradient equals the big batch's:", same_gradient)
