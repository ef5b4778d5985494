import resource  # Unix only

import paddle


@paddle.no_grad()
def out_of_place(x):
    return paddle.sin(paddle.exp(x))  # allocates two new results per call


signal = paddle.rand([1 << 20])  # 4 MiB
pages = signal.numel().item() * signal.element_size() // 4096
faults = []  # page faults of each call
for _ in range(1000):
    before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
    out_of_place(signal)
    faults.append(resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before)
print(f"pages per 4 MiB result: {pages}")
print(f"page faults of the first 5 calls: {faults[:5]}")
print(f"page faults of the last 100 calls: from {min(faults[-100:])} to {max(faults[-100:])}")
