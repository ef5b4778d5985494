import torch

torch.manual_seed(0)
width, depth, micro_batch_size = 64, 4, 1024
# Few weights (4 x 64 x 64), large batches: the saved activations dominate memory.
model = torch.nn.Sequential(
    *[m for _ in range(depth) for m in (torch.nn.Linear(width, width), torch.nn.Tanh())]
)
micro_batches = [torch.randn(micro_batch_size, width) for _ in range(8)]
big_batches = {n: torch.cat(micro_batches[:n]) for n in (1, 2, 4, 8)}


def loss_of(batch):
    return model(batch).square().mean()


def one_big_batch(batch):
    loss_of(batch).backward()


def list_of_losses(micro_batches):
    losses = [loss_of(micro_batch) for micro_batch in micro_batches]  # every graph stays alive
    (sum(losses) / len(losses)).backward()


def accumulate(micro_batches):
    for micro_batch in micro_batches:
        (loss_of(micro_batch) / len(micro_batches)).backward()  # frees this graph


activation_bytes = micro_batch_size * width * 4  # one layer's output for one micro-batch


def saved_for_backward(micro_batches):
    """What the graphs of these micro-batches save for backward, by kind: [count, bytes]."""
    saved = {}

    def keep(tensor):
        saved[tensor.data_ptr()] = tensor  # a tensor saved by two nodes counts once
        return tensor

    with torch.autograd.graph.saved_tensors_hooks(keep, lambda tensor: tensor):
        for micro_batch in micro_batches:
            loss_of(micro_batch)  # the forward pass is where the graph saves its tensors
    weights = {parameter.data_ptr() for parameter in model.parameters()}
    inputs = {micro_batch.data_ptr() for micro_batch in micro_batches}
    kinds = {"activations": [0, 0], "input data": [0, 0], "weights": [0, 0]}
    for address, tensor in saved.items():
        if address in weights:
            kind = "weights"
        elif address in inputs:
            kind = "input data"
        else:
            kind = "activations"
        kinds[kind][0] += 1
        kinds[kind][1] += tensor.numel() * tensor.element_size()
    return kinds


def saved_activation_bytes(n):
    """The count of what the graphs keep: one Tanh output per layer per micro-batch."""
    return n * depth * activation_bytes


def theoretical_peak(method, n):
    """Bytes alive at the peak, which is reached inside the backward of square()."""
    # The loss's backward starts by making 4 activation-sized tensors: mean's gradient and
    # 3 temporaries of square's gradient (x ** 1, 2 * that, times the incoming gradient).
    loss_backward = 4 * activation_bytes
    if method == "big":  # + the loss and its seed gradient, 4 bytes each
        return saved_activation_bytes(n) + n * loss_backward + 8
    if method == "list":  # backward finishes one micro-batch's graph before the next one
        scalars = 4 * n + 8 + (4 if n > 1 else 0)  # n losses, their mean, 1 or 2 scalar gradients
        return saved_activation_bytes(n) + loss_backward + scalars
    return saved_activation_bytes(1) + loss_backward + 8  # accumulate: one graph at a time


accumulate(micro_batches)  # a first pass creates the .grad tensors
for n in big_batches:
    count, saved_bytes = saved_for_backward(micro_batches[:n])["activations"]
    print(f"n = {n}: the graphs save {count} activations, {saved_bytes / 2**20:.0f} MiB")
