import paddle

paddle.seed(0)
width, micro_batch_size = 64, 1024
batch = paddle.randn([micro_batch_size, width])
activation_bytes = micro_batch_size * width * 4  # one layer's output, float32


def mlp(depth):
    return paddle.nn.Sequential(
        *[m for _ in range(depth) for m in (paddle.nn.Linear(width, width), paddle.nn.Tanh())]
    )


models = {depth: mlp(depth) for depth in (2, 4, 8)}


def one_big_batch(model):
    model(batch).square().mean().backward()


def theoretical_peak(depth):
    saved = depth * activation_bytes  # one Tanh output per layer
    # In the last layer's matmul_grad: its Tanh output is freed, the activation gradient and the
    # input gradient are alive, and so is the weight gradient (64 x 64 floats).
    return saved - activation_bytes + 2 * activation_bytes + width * width * 4 + 4  # + the loss


for depth, model in models.items():
    one_big_batch(model)  # a first pass creates the .grad tensors
    ratio = theoretical_peak(depth) / (depth * activation_bytes)
    print(f"depth {depth}: peak / saved activations = {ratio:.2f} in theory")
