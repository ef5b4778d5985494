import torch

torch.set_num_threads(1)  # time the memory work, not intra-op thread scheduling
N = 1 << 20  # 2**20 float32 values: 4 MiB per tensor
signal = torch.rand(N)


@torch.no_grad()
def activate_out_of_place(signal):
    return torch.sin(torch.exp(signal * 2 + 1))  # each op allocates a new tensor


@torch.no_grad()
def activate_in_place(signal):
    return signal.mul_(2).add_(1).exp_().sin_()  # every op writes into signal


print(f"one tensor: {signal.numel() * signal.element_size() / 2**20:.0f} MiB")
print(
    f"same result: {torch.allclose(activate_out_of_place(signal), activate_in_place(signal.clone()))}"
)
