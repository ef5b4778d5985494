import paddle

batch = paddle.ones([1, 2])


def values(tensor):
    """Its values, or the error of a tensor that holds no memory (whose values mean nothing)."""
    try:
        tensor.norm()
    except RuntimeError as error:
        return f"{type(error).__name__}: {str(error).splitlines()[0]}"
    return tensor.tolist()


def kept_across_a_clear(**clear_grad_args):
    """Keep `weight.grad` after one step's backward, clear, backward again: what the name shows."""
    model = paddle.nn.Linear(2, 1)
    optimizer = paddle.optimizer.SGD(learning_rate=0.1, parameters=model.parameters())
    model(batch).sum().backward()  # step 1: a gradient of 1 per element
    kept = model.weight.grad  # kept, say, to log the gradient's norm at every step
    first = kept.tolist()
    optimizer.step()
    optimizer.clear_grad(**clear_grad_args)
    after_clear = values(kept)
    (2 * model(batch)).sum().backward()  # step 2: a gradient of 2 per element
    try:
        kept_norm = round(kept.norm().item(), 4)
    except RuntimeError as error:
        kept_norm = f"{type(error).__name__}: {str(error).splitlines()[0]}"
    return {
        "weight.grad, after step 1": first,
        "kept, after the clear": after_clear,
        "kept, after the next backward": values(kept),
        "kept.norm(), after the next backward": kept_norm,
        "weight.grad, read again": model.weight.grad.tolist(),
        "kept is weight.grad's memory": kept.data_ptr() == model.weight.grad.data_ptr(),
    }


seen = {
    "optimizer.clear_grad()": kept_across_a_clear(),
    "optimizer.clear_grad(set_to_zero=False)": kept_across_a_clear(set_to_zero=False),
}
for call, values in seen.items():
    print(call)
    for what, value in values.items():
        print(f"    {what:38} {value}")
