import re

import paddle
import paddle.nn.functional as F
from paddle import nn

# With call stack level 2, the message also carries the C++ traceback, which names the
# backward node that found its saved tensor overwritten.
paddle.set_flags({"FLAGS_call_stack_level": 2})
PARTS = re.compile(r"Its version is (?P<version>\d+) but the expected version is (?P<expected>\d+)")


def read_message(culprit):
    """Run `culprit`, which ends with a backward that may fail; the parts of its message."""
    paddle.seed(0)
    try:
        culprit()
    except RuntimeError as error:
        nodes = re.findall(r"(\w+GradNode)::operator\(\)", str(error))
        return {"node": nodes[-1], **PARTS.search(str(error)).groupdict()}
    return "no error"


def relu_on_saved_input():
    linear, shortcut = nn.Linear(4, 4), nn.Linear(4, 4)
    hidden = linear(paddle.randn([2, 4]))
    skip = shortcut(hidden)  # saves hidden
    (skip + F.relu_(hidden)).sum().backward()


def relu_after_tanh():
    hidden = paddle.tanh(nn.Linear(4, 4)(paddle.randn([2, 4])))  # tanh saves its output
    F.relu_(hidden).sum().backward()


def step_before_backward():
    discriminator = nn.Linear(4, 3)
    optimizer = paddle.optimizer.SGD(0.1, parameters=discriminator.parameters())
    fake = nn.Linear(2, 4)(paddle.randn([5, 2]))  # requires grad: the weight is saved
    first, second = discriminator(fake).sum(), discriminator(fake).mean()
    first.backward(retain_graph=True)
    optimizer.step()
    second.backward()


def adamw_step_before_backward():
    discriminator = nn.Linear(4, 3)
    optimizer = paddle.optimizer.AdamW(0.1, parameters=discriminator.parameters())
    fake = nn.Linear(2, 4)(paddle.randn([5, 2]))
    first, second = discriminator(fake).sum(), discriminator(fake).mean()
    first.backward(retain_graph=True)
    optimizer.step()
    second.backward()


def write_into_other_row():
    weight = paddle.randn([4])
    weight.stop_gradient = False
    buffer = paddle.zeros([3, 4])
    buffer[0] = weight * 2
    product = (buffer[0] * weight).sum()  # saves the row buffer[0]
    buffer[1] = 1.0  # another row of the same storage
    product.backward()


def plus_equals_twice():
    weight = paddle.randn([4])
    weight.stop_gradient = False
    hidden = weight * 1
    product = (hidden * weight).sum()  # saves hidden
    hidden += 1  # in Paddle, a new tensor
    hidden += 1
    product.backward()


def parameter_under_no_grad():
    norm = nn.LayerNorm(4)
    output = norm(nn.Linear(4, 4)(paddle.randn([2, 4]))).sum()  # saves norm.weight itself
    with paddle.no_grad():
        norm.weight.scale_(0.5)  # a weight update by hand
    output.backward()


CULPRITS = [
    relu_on_saved_input,
    relu_after_tanh,
    step_before_backward,
    adamw_step_before_backward,
    write_into_other_row,
    plus_equals_twice,
    parameter_under_no_grad,
]
messages = {culprit.__name__: read_message(culprit) for culprit in CULPRITS}
for culprit, parts in messages.items():
    print(f"{culprit:28} {parts}")
