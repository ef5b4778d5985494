import re

import paddle
from paddle import nn

# With call stack level 2, the message carries the C++ traceback, which names the backward
# node that found its saved tensor overwritten.
paddle.set_flags({"FLAGS_call_stack_level": 2})


def whole_message(culprit):
    """Run `culprit`: the backward node that failed, and the whole message."""
    paddle.seed(0)
    try:
        culprit()
    except RuntimeError as error:
        node = re.findall(r"\w+GradNode(?=::operator\(\))", str(error))[-1]
        summary = str(error).split("Error Message Summary:\n----------------------\n")[-1]
        return f"{node}\n{summary.strip()}"
    return "no error"


def inplace_after_relu():  # an in-place op writes the output that ReLU saved
    hidden = nn.ReLU()(nn.Linear(4, 4)(paddle.randn([2, 4])))
    hidden.clip_(max=6.0)  # ReLU6, by hand
    hidden.sum().backward()


def step_before_backward():  # an optimiser step between a forward and its backward
    layer = nn.Linear(4, 3)
    optimizer = paddle.optimizer.SGD(0.1, parameters=layer.parameters())
    features = paddle.randn([5, 4])
    features.stop_gradient = False
    output = layer(features)  # saves the weight
    output.sum().backward(retain_graph=True)
    optimizer.step()
    output.mean().backward()


def write_into_a_slice():  # item assignment into a tensor that an op saved whole
    weight = paddle.randn([4])
    weight.stop_gradient = False
    hidden = weight * 2
    product = (hidden * weight).sum()  # saves hidden
    hidden[0] = 0.0
    product.backward()


def plus_equals():  # += on a tensor that an op saved
    weight = paddle.randn([4])
    weight.stop_gradient = False
    hidden = weight * 2
    product = (hidden * weight).sum()  # saves hidden
    hidden += 1  # in Paddle, a new tensor
    product.backward()


CULPRITS = [inplace_after_relu, step_before_backward, write_into_a_slice, plus_equals]
messages = {culprit.__name__: whole_message(culprit) for culprit in CULPRITS}
for culprit, message in messages.items():
    print(f"{culprit}:\n{message}\n")
