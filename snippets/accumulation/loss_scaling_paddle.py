import paddle
import paddle.nn.functional as F

paddle.seed(0)
model = paddle.nn.Linear(4, 1)
sizes = [6, 2]  # two micro-batches of unequal size (think: tokens per sequence)
samples = paddle.randn([sum(sizes), 4])
targets = paddle.randn([sum(sizes), 1])

model.clear_gradients()
F.mse_loss(model(samples), targets).backward()  # mean over all 8 items
full_batch_grad = model.weight.grad.clone()


def accumulated_grad(scale):
    model.clear_gradients()
    for micro_samples, micro_targets in zip(
        samples.split(sizes), targets.split(sizes), strict=True
    ):
        per_item = F.mse_loss(model(micro_samples), micro_targets, reduction="none")
        scale(per_item).backward()
    return model.weight.grad


mean_over_steps = accumulated_grad(lambda per_item: per_item.mean() / len(sizes))
sum_over_total = accumulated_grad(lambda per_item: per_item.sum() / sum(sizes))
mean_error = (mean_over_steps - full_batch_grad).abs().max().item()
sum_error = (sum_over_total - full_batch_grad).abs().max().item()
print(f"mean / accumulation_steps: max abs error {mean_error:.3g}")
print(f"sum / total item count:    max abs error {sum_error:.3g}")
