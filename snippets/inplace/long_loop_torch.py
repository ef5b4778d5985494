import resource  # Unix only

import torch

torch.set_num_threads(1)  # one thread, as Paddle runs these ops


@torch.no_grad()
def out_of_place(x):
    return torch.sin(torch.exp(x))  # allocates two new results per call


signal = torch.rand(1 << 20)  # 4 MiB
pages = signal.numel() * signal.element_size() // 4096
faults = []  # page faults of each call
for _ in range(1000):
    before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
    out_of_place(signal)
    faults.append(resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before)
print(f"pages per 4 MiB result: {pages}")
print(f"page faults of the first 5 calls: {faults[:5]}")
print(f"page faults of the last 100 calls: from {min(faults[-100:])} to {max(faults[-100:])}")
