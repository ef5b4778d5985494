import paddle

weight = paddle.to_tensor([1.0, 2.0, 3.0], stop_gradient=False)
has_inference_mode = hasattr(paddle, "inference_mode")
print(f"paddle.inference_mode exists: {has_inference_mode}")


def made_under(mode):
    with mode():
        return weight * 2  # a result computed without recording the graph


def write_in_place(tensor):
    tensor.add_(paddle.to_tensor(1.0))


def read_version(tensor):
    return tensor.inplace_version


def save_for_backward(tensor):
    (weight * tensor).sum().backward()  # multiplication saves tensor for backward


def afterwards(mode):
    """What ordinary grad-mode code can still do with a tensor made under `mode`."""
    results = {}
    for action in (write_in_place, read_version, save_for_backward):
        action(made_under(mode))
        results[action.__name__] = "allowed"
    return results


outcome = {
    "no_grad": afterwards(paddle.no_grad),
    "set_grad_enabled(False)": afterwards(lambda: paddle.set_grad_enabled(False)),
}
for mode, results in outcome.items():
    print(f"made under paddle.{mode}")
    for action, result in results.items():
        print(f"  {action:18} {result}")
