import torch

N = 1 << 20  # 2**20 float32 values: 4 MiB per tensor
signal = torch.rand(N)
two = torch.tensor(2.0)  # the number 2 as a tensor, made before anything is measured


@torch.no_grad()
def times_number(signal):
    return signal * 2


@torch.no_grad()
def times_tensor(signal):
    return signal * two


print(f"same result: {torch.equal(times_number(signal), times_tensor(signal))}")
