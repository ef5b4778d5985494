import torch

torch.manual_seed(0)
width, depth, micro_batch_size = 512, 4, 64
# Many weights (4 x 512 x 512), small micro-batches: the gradients are large next to the activations.
model = torch.nn.Sequential(
    *[m for _ in range(depth) for m in (torch.nn.Linear(width, width), torch.nn.Tanh())]
)
micro_batches = [torch.randn(micro_batch_size, width) for _ in range(8)]
big_batches = {n: torch.cat(micro_batches[:n]) for n in range(2, 9)}


def loss_of(batch):
    return model(batch).square().mean()


def one_big_batch(batch):
    loss_of(batch).backward()
    model.zero_grad()  # as after optimizer.step(): the gradients are dropped (set to None)


def accumulate(micro_batches):
    for micro_batch in micro_batches:  # the gradients stay allocated from the first backward on
        (loss_of(micro_batch) / len(micro_batches)).backward()
    model.zero_grad()


gradient_bytes = sum(parameter.numel() * 4 for parameter in model.parameters())
activation_bytes = micro_batch_size * width * 4  # one layer's output for one micro-batch


def theoretical_peak(method, n):
    if method == "big":
        # Either at the end of backward (every .grad, and the gradient entering the first layer)
        # or at its start (saved activations, and 4 activation-sized tensors of the loss's backward).
        end = gradient_bytes + n * activation_bytes
        start = depth * n * activation_bytes + 4 * n * activation_bytes
        return max(end, start) + 8  # + the loss and its seed gradient
    # Accumulation, from the second micro-batch on: every .grad, plus the last layer's backward of
    # one micro-batch: 3 saved Tanh outputs, 2 activation gradients, and new weight and bias
    # gradients that are then added into .grad.
    return gradient_bytes + (depth + 1) * activation_bytes + (width * width + width) * 4 + 8


one_big_batch(big_batches[2])  # a first pass of each, unmeasured
accumulate(micro_batches[:2])
print(f"gradients of all parameters: {gradient_bytes / 2**20:.2f} MiB")
print(f"activations saved per micro-batch: {depth * activation_bytes / 2**20:.2f} MiB")
