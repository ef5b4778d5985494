import paddle
from paddle import nn

OPTIMIZERS = {
    "SGD": lambda params: paddle.optimizer.SGD(0.1, parameters=params),
    "Momentum": lambda params: paddle.optimizer.Momentum(0.1, parameters=params),
    "Adam": lambda params: paddle.optimizer.Adam(0.1, parameters=params),
    "AdamW": lambda params: paddle.optimizer.AdamW(0.1, parameters=params),
    "RMSProp": lambda params: paddle.optimizer.RMSProp(0.1, parameters=params),
    "Adagrad": lambda params: paddle.optimizer.Adagrad(0.1, parameters=params),
    "Adamax": lambda params: paddle.optimizer.Adamax(0.1, parameters=params),
    "Lamb": lambda params: paddle.optimizer.Lamb(0.1, parameters=params),
}


def step_between(make_optimizer):
    """Two losses from one forward, a step between their backwards: writes, and the outcome."""
    paddle.seed(0)
    discriminator = nn.Linear(4, 3)
    optimizer = make_optimizer(discriminator.parameters())
    fake = paddle.randn([5, 4])
    fake.stop_gradient = False
    first, second = discriminator(fake).sum(), discriminator(fake).mean()
    first.backward(retain_graph=True)
    used_weight = discriminator.weight.detach().clone()  # the weight both forwards used
    fake.clear_grad()
    before = discriminator.weight.inplace_version
    optimizer.step()
    writes = discriminator.weight.inplace_version - before
    try:
        second.backward()
    except RuntimeError as error:
        if "modified by an inplace operation" not in str(error):
            raise
        return writes, "error"
    expected = (used_weight.sum(1) / 15).expand([5, 4])  # second is the mean of 5 x 3 outputs
    correct = paddle.allclose(fake.grad, expected).item()
    return writes, "correct gradient" if correct else "wrong gradient, no error"


outcome = {name: step_between(make) for name, make in OPTIMIZERS.items()}
for name, (writes, result) in outcome.items():
    print(f"{name:24} writes per step: {writes}   step before backward: {result}")
