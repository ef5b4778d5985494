import paddle
from paddle.distributed.fleet.utils import recompute

paddle.seed(0)
width, micro_batch_size, accumulation_steps = 64, 1024, 8
# 8 layers in 4 segments of 2: recomputation keeps only what enters each segment.
segments = paddle.nn.LayerList(
    paddle.nn.Sequential(
        paddle.nn.Linear(width, width),
        paddle.nn.Tanh(),
        paddle.nn.Linear(width, width),
        paddle.nn.Tanh(),
    )
    for _ in range(4)
)
micro_batches = [paddle.randn([micro_batch_size, width]) for _ in range(accumulation_steps)]
batch = paddle.concat(micro_batches)  # the same samples as one big batch


def loss_of(inputs, with_recompute):
    for segment in segments:
        if with_recompute:  # keep only the segment's input; compute the rest again in backward
            # use_reentrant=False: the default (True) gives no gradient to a first segment
            # whose input needs none (see the first-block pitfall)
            inputs = recompute(segment, inputs, use_reentrant=False)
        else:
            inputs = segment(inputs)
    return inputs.square().mean()


def one_big_batch(with_recompute=False):
    loss_of(batch, with_recompute).backward()


def accumulate(with_recompute=False):
    for micro_batch in micro_batches:
        (loss_of(micro_batch, with_recompute) / accumulation_steps).backward()


activation_bytes = micro_batch_size * width * 4  # one layer's output for one micro-batch


def theoretical_peak(method, with_recompute):
    n = accumulation_steps if method == "big" else 1  # micro-batches in one graph
    if with_recompute:
        # While the last segment's first layer is recomputed: what enters segments 2-4, the
        # activation gradient, and the recomputed matmul, bias-add and Tanh outputs.
        return (3 + 1 + 3) * n * activation_bytes + 4  # + the loss
    # In the last layer's matmul_grad (see the memory section): 7 saved Tanh outputs, the
    # activation gradient, the input gradient, the 64 x 64 weight gradient.
    return (7 + 2) * n * activation_bytes + width * width * 4 + 4


for with_recompute in (False, True):  # a first pass of each creates the .grad tensors
    one_big_batch(with_recompute)
    accumulate(with_recompute)
for method in ("big", "accumulate"):
    for with_recompute in (False, True):
        peak = theoretical_peak(method, with_recompute) / 2**20
        print(
            f"{method:10} with_recompute={with_recompute!s:5}: {peak:.2f} MiB at the peak in theory"
        )
