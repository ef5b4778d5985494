import paddle

paddle.seed(0)
width, depth, micro_batch_size = 64, 4, 1024
model = paddle.nn.Sequential(
    *[m for _ in range(depth) for m in (paddle.nn.Linear(width, width), paddle.nn.Tanh())]
)
micro_batches = [paddle.randn([micro_batch_size, width]) for _ in range(8)]
activation_bytes = micro_batch_size * width * 4  # one layer's output for one micro-batch


def list_of_losses(combine):
    losses = [model(micro_batch).square().mean() for micro_batch in micro_batches]
    combine(losses).backward()


def summed(losses):
    return sum(losses) / len(losses)  # a chain of additions: loss_1 + loss_2 + ...


def stacked(losses):
    return paddle.stack(losses).mean()  # one node that feeds every micro-batch's graph


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
    """Backward runs the micro-batch graphs side by side, one layer at a time."""
    n = len(micro_batches)
    saved = n * depth * activation_bytes
    if combine is summed:  # graphs one node apart, each freeing what it passed: + 3 activations
        return saved + 3 * activation_bytes
    # every graph gets its activation gradient at once, + n losses, their mean and seed
    return saved + n * activation_bytes + 4 * n + 8


list_of_losses(summed)  # a first pass creates the .grad tensors
for combine in (summed, stacked):
    print(f"{combine.__name__}: {theoretical_peak(combine) / 2**20:.2f} MiB at the peak in theory")
    in_flight = most_graphs_in_flight(backward_order(combine))
    print(f"{combine.__name__}: graphs under way at one time in backward, at most: {in_flight}")
