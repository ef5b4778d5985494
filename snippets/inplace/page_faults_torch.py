import resource  # Unix only

import torch

torch.set_num_threads(1)  # one thread, as Paddle runs these ops


@torch.no_grad()
def out_of_place(x):
    return torch.sin(torch.exp(x))  # allocates two new results per call


@torch.no_grad()
def into_buffer(x, out):
    return torch.sin(torch.exp(x, out=out), out=out)


@torch.no_grad()
def in_place(x):
    return x.exp_().sin_()


def page_faults_per_call(function, *args, calls=2):
    """Minor page faults per call: pages of memory the system had to map for the process."""
    function(*args)  # the first call is not counted
    before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
    for _ in range(calls):
        function(*args)
    return (resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before) / calls


faults = {}
for mib in (4, 64):
    signal = torch.rand(mib * 2**20 // 4)
    buffer = torch.empty_like(signal)
    faults[mib] = {
        "pages per result": signal.numel() * signal.element_size() // 4096,
        "out_of_place": page_faults_per_call(out_of_place, signal),
        "into_buffer": page_faults_per_call(into_buffer, signal, buffer),
        "in_place": page_faults_per_call(in_place, signal),
    }
    print(f"{mib:3} MiB per tensor: {faults[mib]}")
