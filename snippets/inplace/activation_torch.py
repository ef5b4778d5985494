import torch

N = 1 << 20  # 2**20 float32 values: 4 MiB per tensor
signal = torch.rand(N)


@torch.no_grad()
def activate_out_of_place(signal):
    return torch.sin(torch.exp(signal))  # each op allocates a new tensor


@torch.no_grad()
def activate_in_place(signal):
    return signal.exp_().sin_()  # the same ops, writing into signal


print(f"one tensor: {signal.numel() * signal.element_size() / 2**20:.0f} MiB")
print(
    f"same result: {torch.equal(activate_out_of_place(signal), activate_in_place(signal.clone()))}"
)
