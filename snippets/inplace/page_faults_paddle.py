import resource  # Unix only

import paddle


@paddle.no_grad()
def out_of_place(x):
    return paddle.sin(paddle.exp(x))  # allocates two new results per call


@paddle.no_grad()
def into_buffer(x, out):
    return paddle.sin(paddle.exp(x, out=out), out=out)


@paddle.no_grad()
def in_place(x):
    return x.exp_().sin_()


def page_faults(function, *args, calls):
    """Minor page faults of each call: pages of memory the system had to map for the process."""
    counts = []
    for _ in range(calls):
        before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
        function(*args)
        counts.append(resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before)
    return counts


faults = {}
for mib, calls in ((4, 20), (256, 3)):
    signal = paddle.rand([mib * 2**20 // 4])
    buffer = paddle.empty_like(signal)
    faults[mib] = {
        "pages per result": signal.numel().item() * signal.element_size() // 4096,
        "out_of_place": page_faults(out_of_place, signal, calls=calls),
        "into_buffer": page_faults(into_buffer, signal, buffer, calls=calls),
        "in_place": page_faults(in_place, signal, calls=calls),
    }
    print(f"{mib:3} MiB per tensor: {faults[mib]}")
