import torch

weight = torch.tensor([1.0, 2.0], requires_grad=True)
seen = []
# Called after each backward has added into weight.grad: with the running sum.
weight.register_post_accumulate_grad_hook(lambda parameter: seen.append(parameter.grad.tolist()))
accumulation_steps = 4
for micro_batch in torch.ones(accumulation_steps, 2):  # four micro-batches of ones
    (weight * micro_batch).sum().backward()
print(f"hook calls: {len(seen)}, what each saw: {seen}")
