import torch

batch = torch.ones(1, 2)


def kept_across_a_clear(**zero_grad_args):
    """Keep `weight.grad` after one step's backward, clear, backward again: what the name shows."""
    model = torch.nn.Linear(2, 1)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    model(batch).sum().backward()  # step 1: a gradient of 1 per element
    kept = model.weight.grad  # kept, say, to log the gradient's norm at every step
    first = kept.tolist()
    optimizer.step()
    optimizer.zero_grad(**zero_grad_args)
    after_clear = kept.tolist()
    (2 * model(batch)).sum().backward()  # step 2: a gradient of 2 per element
    return {
        "weight.grad, after step 1": first,
        "kept, after the clear": after_clear,
        "kept, after the next backward": kept.tolist(),
        "kept.norm(), after the next backward": round(kept.norm().item(), 4),
        "weight.grad, read again": model.weight.grad.tolist(),
        "kept is weight.grad's memory": kept.data_ptr() == model.weight.grad.data_ptr(),
    }


seen = {
    "optimizer.zero_grad()": kept_across_a_clear(),
    "optimizer.zero_grad(set_to_none=False)": kept_across_a_clear(set_to_none=False),
}
for call, values in seen.items():
    print(call)
    for what, value in values.items():
        print(f"    {what:38} {value}")
