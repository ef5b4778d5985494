import torch

torch.manual_seed(0)
width, micro_batch_size = 64, 1024
batch = torch.randn(micro_batch_size, width)
activation_bytes = micro_batch_size * width * 4  # one layer's output, float32


def mlp(depth):
    return torch.nn.Sequential(
        *[m for _ in range(depth) for m in (torch.nn.Linear(width, width), torch.nn.Tanh())]
    )


models = {depth: mlp(depth) for depth in (2, 4, 8)}


def one_big_batch(model):
    model(batch).square().mean().backward()


def theoretical_peak(depth):
    saved = depth * activation_bytes  # one Tanh output per layer
    loss_backward = 4 * activation_bytes  # mean's gradient + 3 temporaries of square's backward
    return saved + loss_backward + 8  # + the loss and its seed gradient


for depth, model in models.items():
    one_big_batch(model)  # a first pass creates the .grad tensors
    ratio = theoretical_peak(depth) / (depth * activation_bytes)
    print(f"depth {depth}: peak / saved activations = {ratio:.2f} in theory")
