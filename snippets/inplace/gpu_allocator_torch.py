import torch
from torch.profiler import ProfilerActivity, profile

N = 1 << 20  # 2**20 float32 values: 4 MiB per tensor
signal = torch.rand(N)  # on the GPU in a GPU run


@torch.no_grad()
def out_of_place(x):
    return torch.sin(torch.exp(x))  # two new results per call


@torch.no_grad()
def in_place(x):
    return x.exp_().sin_()


out_of_place(signal)  # the first call: the caching allocator takes memory from the driver
torch.cuda.synchronize()
segments = torch.cuda.memory_stats()[
    "segment.all.allocated"
]  # blocks the allocator took from the driver so far
reserved = torch.cuda.memory_reserved()
for _ in range(100):
    out_of_place(signal)
torch.cuda.synchronize()
new_segments = torch.cuda.memory_stats()["segment.all.allocated"] - segments
reserved_growth = torch.cuda.memory_reserved() - reserved

with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as trace:
    out_of_place(signal)
    in_place(signal)
    torch.cuda.synchronize()
copies = sorted({event.name for event in trace.events() if "Memcpy" in event.name})

print(f"blocks taken from the driver during 100 more calls: {new_segments}")
print(f"growth of reserved memory: {reserved_growth} bytes")
print(f"copies between CPU and GPU: {copies or 'none'}")
