import resource  # Unix only

import paddle


@paddle.no_grad()
def out_of_place(x):
    return paddle.sin(paddle.exp(x))  # allocates two new results per call


def page_faults_once_settled(function, *args, calls=10):
    """Minor page faults of the last of `calls` calls, once repeating the call changes nothing."""
    for _ in range(calls - 1):
        function(*args)
    before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
    function(*args)
    return resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before


signal = paddle.rand([1 << 20])  # 4 MiB
pages = signal.numel().item() * signal.element_size() // 4096
before = page_faults_once_settled(out_of_place, signal)
block = paddle.ones([1 << 22])  # 16 MiB, written, then freed: what earlier work leaves behind
del block
after = page_faults_once_settled(out_of_place, signal)
print(f"pages per 4 MiB result: {pages}")
print(f"page faults per call, settled: {before}; after a 16 MiB tensor was freed: {after}")
