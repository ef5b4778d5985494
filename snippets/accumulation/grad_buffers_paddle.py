import paddle

paddle.seed(0)
width, depth, micro_batch_size = 512, 4, 64
# Many weights (4 x 512 x 512), small micro-batches: the gradients are large next to the activations.
model = paddle.nn.Sequential(
    *[m for _ in range(depth) for m in (paddle.nn.Linear(width, width), paddle.nn.Tanh())]
)
micro_batches = [paddle.randn([micro_batch_size, width]) for _ in range(8)]
big_batches = {n: paddle.concat(micro_batches[:n]) for n in range(2, 9)}


def loss_of(batch):
    return model(batch).square().mean()


def one_big_batch(batch):
    loss_of(batch).backward()
    # As after the optimizer step, with the gradients dropped (clear_grad()'s default keeps zeros).
    model.clear_gradients(set_to_zero=False)


def accumulate(micro_batches):
    for micro_batch in micro_batches:  # the gradients stay allocated from the first backward on
        (loss_of(micro_batch) / len(micro_batches)).backward()
    model.clear_gradients(set_to_zero=False)


gradient_bytes = sum(parameter.numel().item() * 4 for parameter in model.parameters())
activation_bytes = micro_batch_size * width * 4  # one layer's output for one micro-batch


def theoretical_peak(method, n):
    layer_grad = (width * width + width) * 4  # a weight and a bias gradient
    if method == "big":
        # In layer k's matmul_grad (layer 1 takes the data), with the new .grad of layers k to
        # depth stored: the Tanh outputs below layer k, the activation gradient, the input
        # gradient (none for layer 1: the data needs none), plus the 4-byte loss.
        return max(
            (k - 1) * n * activation_bytes
            + (2 if k > 1 else 1) * n * activation_bytes
            + (depth - k + 1) * layer_grad
            + 4
            for k in range(1, depth + 1)
        )
    # Accumulation, from the second micro-batch on: every .grad, plus the last layer's
    # matmul_grad of one micro-batch (see the memory section), whose weight gradient is then
    # added into .grad.
    return gradient_bytes + (depth + 1) * activation_bytes + width * width * 4 + 4


one_big_batch(big_batches[2])  # a first pass of each, unmeasured
accumulate(micro_batches[:2])
print(f"gradients of all parameters: {gradient_bytes / 2**20:.2f} MiB")
print(f"activations saved per micro-batch: {depth * activation_bytes / 2**20:.2f} MiB")
