import re

import paddle


def second_backward(build):
    """Backward once through `first`, then through `second`, which shares part of its graph."""
    weight = paddle.to_tensor([1.0, 2.0], stop_gradient=False)
    first, second = build(weight)
    first.backward()
    grads = [weight.grad.tolist()]
    try:
        second.backward()
    except SystemError as error:
        if "backward twice for the same subgraph" not in str(error):
            raise  # any other error is a real failure
        node = re.search(r"TensorWrappers of (\w+)", str(error))[1]  # the node it stopped at
        return {"raised": True, "grads": grads + [weight.grad.tolist()], "node": node}
    return {"raised": False, "grads": grads + [weight.grad.tolist()]}


def same_loss(make_loss):
    return lambda weight: (make_loss(weight),) * 2


def below_a_sin(weight):
    hidden = weight + 1  # the second backward starts here and goes through the add only
    return hidden.sin().sum(), hidden.sum()


def with_a_second_leaf(weight):
    bias = paddle.to_tensor([0.5, 0.5], stop_gradient=False)  # a second leaf
    loss = bias.sin().sum() + (weight + 1).sum()
    return loss, loss


graphs = {
    "(weight ** 2).sum()": same_loss(lambda weight: (weight**2).sum()),
    "(weight * 2).sum()": same_loss(lambda weight: (weight * 2).sum()),
    "weight.sin().sum()": same_loss(lambda weight: weight.sin().sum()),
    "(weight + 1).sum()": same_loss(lambda weight: (weight + 1).sum()),
    "weight.reshape([2, 1]).sum()": same_loss(lambda weight: weight.reshape([2, 1]).sum()),
    "(weight + 1).sum() + weight.sin().sum()": same_loss(
        lambda weight: (weight + 1).sum() + weight.sin().sum()
    ),
    "sin of (weight + 1), then (weight + 1).sum()": below_a_sin,
    "bias.sin().sum() + (weight + 1).sum()": with_a_second_leaf,
}
results = {name: second_backward(build) for name, build in graphs.items()}
for name, result in results.items():
    outcome = f"raises at {result['node']}" if result["raised"] else "runs"
    first, second = ([round(g, 4) for g in grad] for grad in result["grads"])
    print(f"{name:45} second backward {outcome:24} grad {first} -> {second}")
