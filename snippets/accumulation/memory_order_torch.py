import torch

torch.manual_seed(0)
width, depth, micro_batch_size = 64, 4, 1024
model = torch.nn.Sequential(
    *[m for _ in range(depth) for m in (torch.nn.Linear(width, width), torch.nn.Tanh())]
)
micro_batches = [torch.randn(micro_batch_size, width) for _ in range(8)]
activation_bytes = micro_batch_size * width * 4  # one layer's output for one micro-batch


def list_of_losses(combine):
    losses = [model(micro_batch).square().mean() for micro_batch in micro_batches]
    combine(losses).backward()


def summed(losses):
    return sum(losses) / len(losses)  # a chain of additions: loss_1 + loss_2 + ...


def stacked(losses):
    return torch.stack(losses).mean()  # one node that feeds every micro-batch's graph


def backward_order(combine):
    """(micro-batch, layer) in the order backward reaches each layer's output."""
    order, losses = [], []
    for m, micro_batch in enumerate(micro_batches):
        output = micro_batch
        for layer, module in enumerate(model):
            output = module(output)
            output.register_hook(lambda grad, m=m, layer=layer: order.append((m, layer)))
        losses.append(output.square().mean())
    combine(losses).backward()
    return order


def most_graphs_in_flight(order):
    """The most micro-batch graphs that backward had started and not finished at one time."""
    started, finished, most = set(), set(), 0
    for m, layer in order:
        started.add(m)
        most = max(most, len(started - finished))
        if layer == 0:  # the first layer's output: this graph is done
            finished.add(m)
    return most


def theoretical_peak(combine):
    """Backward finishes one micro-batch's graph before it starts the next, either way."""
    n = len(micro_batches)
    saved = n * depth * activation_bytes
    loss_backward = 4 * activation_bytes  # of the one graph being processed
    scalars = 4 * n + 12 if combine is summed else 8 * n + 8  # losses and their gradients
    return saved + loss_backward + scalars


list_of_losses(summed)  # a first pass creates the .grad tensors
for combine in (summed, stacked):
    print(f"{combine.__name__}: {theoretical_peak(combine) / 2**20:.2f} MiB at the peak in theory")
    in_flight = most_graphs_in_flight(backward_order(combine))
    print(f"{combine.__name__}: graphs under way at one time in backward, at most: {in_flight}")
