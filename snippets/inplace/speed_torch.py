import torch

torch.set_num_threads(1)  # one thread, as Paddle runs these ops
N = 1 << 20  # 2**20 float32 values: 4 MiB per tensor
signal = torch.rand(N)
buffer = torch.empty(N)  # allocated once, reused by every call of into_buffer
small_signal = torch.rand(1 << 14)  # 64 KiB
large_signal = torch.rand(1 << 24)  # 64 MiB


@torch.no_grad()
def out_of_place(x):
    return torch.sin(torch.exp(x))  # allocates two new results per call


@torch.no_grad()
def into_buffer(x, out):
    return torch.sin(torch.exp(x, out=out), out=out)  # allocates nothing, two buffers


@torch.no_grad()
def in_place(x):
    return x.exp_().sin_()  # allocates nothing, one buffer


copy = signal.clone()
print(f"same result with out=: {torch.equal(out_of_place(signal), into_buffer(signal, buffer))}")
print(f"same result in place:  {torch.equal(out_of_place(signal), in_place(copy))}")
