import paddle
import paddle.nn.functional as F

paddle.seed(0)
accumulation_steps = 4
micro_batches = [(paddle.randn([8, 4]), paddle.randn([8, 1])) for _ in range(accumulation_steps)]
model = paddle.nn.Linear(4, 1)

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
model.clear_gradients()
big_batch_loss = F.mse_loss(
    model(paddle.concat([x for x, _ in micro_batches])),
    paddle.concat([y for _, y in micro_batches]),
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
same_gradient = paddle.allclose(accumulated, model.weight.grad).item()
print("accumulated gradient equals the big batch's:", same_gradient)
