import paddle

paddle.seed(0)
width, depth, micro_batch_size = 64, 4, 1024
# Few weights (4 x 64 x 64), large batches: the saved activations dominate memory.
model = paddle.nn.Sequential(
    *[m for _ in range(depth) for m in (paddle.nn.Linear(width, width), paddle.nn.Tanh())]
)
micro_batches = [paddle.randn([micro_batch_size, width]) for _ in range(8)]
big_batches = {n: paddle.concat(micro_batches[:n]) for n in (1, 2, 4, 8)}


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

    with paddle.autograd.saved_tensors_hooks(keep, lambda tensor: tensor):
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
        kinds[kind][1] += tensor.size * tensor.element_size()
    return kinds


def saved_activation_bytes(n):
    """The count of what the graphs keep: one Tanh output per layer per micro-batch."""
    return n * depth * activation_bytes


def theoretical_peak(method, n):
    """Bytes alive at the peak: for one graph, in the last layer's matmul_grad."""
    # Alive then: the saved activations except the last Tanh output (already freed), one
    # activation gradient (square_grad and tanh_grad write into mean_grad's buffer), and the
    # two outputs of matmul_grad: the input gradient and the 64 x 64 weight gradient.
    weight_grad = width * width * 4
    if method == "big":  # + the 4-byte loss
        return saved_activation_bytes(n) + n * activation_bytes + weight_grad + 4
    if method == "list":  # side by side, each graph freeing what it passed: + 3 activations
        return saved_activation_bytes(n) + min(n, 3) * activation_bytes
    # accumulate: one micro-batch's graph at a time
    return saved_activation_bytes(1) + activation_bytes + weight_grad + 4


accumulate(micro_batches)  # a first pass creates the .grad tensors
for n in big_batches:
    count, saved_bytes = saved_for_backward(micro_batches[:n])["activations"]
    print(f"n = {n}: the graphs save {count} activations, {saved_bytes / 2**20:.0f} MiB")
