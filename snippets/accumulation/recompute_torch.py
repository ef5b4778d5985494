import torch
from torch.utils.checkpoint import checkpoint

torch.set_num_threads(1)  # one thread: timings that do not depend on the number of cores
torch.manual_seed(0)
width, micro_batch_size, accumulation_steps = 64, 1024, 8
# 8 layers in 4 segments of 2: recomputation keeps only what enters each segment.
segments = torch.nn.ModuleList(
    torch.nn.Sequential(
        torch.nn.Linear(width, width),
        torch.nn.Tanh(),
        torch.nn.Linear(width, width),
        torch.nn.Tanh(),
    )
    for _ in range(4)
)
micro_batches = [torch.randn(micro_batch_size, width) for _ in range(accumulation_steps)]
batch = torch.cat(micro_batches)  # the same samples as one big batch


def loss_of(inputs, with_recompute):
    for segment in segments:
        if with_recompute:  # keep only the segment's input; compute the rest again in backward
            # use_reentrant=False: the default (True) gives no gradient to a first segment
            # whose input needs none (see the first-block pitfall)
            inputs = checkpoint(segment, inputs, use_reentrant=False)
        else:
            inputs = segment(inputs)
    return inputs.square().mean()


def one_big_batch(with_recompute=False):
    loss_of(batch, with_recompute).backward()


def accumulate(with_recompute=False):
    for micro_batch in micro_batches:
        (loss_of(micro_batch, with_recompute) / accumulation_steps).backward()


activation_bytes = micro_batch_size * width * 4  # one layer's output for one micro-batch
rng_state_bytes = torch.get_rng_state().numel()  # saved by each checkpoint (preserve_rng_state)


def theoretical_peak(method, with_recompute):
    n = accumulation_steps if method == "big" else 1  # micro-batches in one graph
    if with_recompute:  # what enters segments 2-4, the output that square() keeps, 4 RNG states
        saved = 4 * n * activation_bytes + 4 * rng_state_bytes
    else:  # one Tanh output per layer
        saved = 8 * n * activation_bytes
    loss_backward = 4 * n * activation_bytes  # mean's gradient + 3 temporaries of square's backward
    return saved + loss_backward + 8  # + the loss and its seed gradient


for with_recompute in (False, True):  # a first pass of each creates the .grad tensors
    one_big_batch(with_recompute)
    accumulate(with_recompute)
for method in ("big", "accumulate"):
    for with_recompute in (False, True):
        peak = theoretical_peak(method, with_recompute) / 2**20
        print(
            f"{method:10} with_recompute={with_recompute!s:5}: {peak:.2f} MiB at the peak in theory"
        )
