import os
import time

import paddle

# Paddle has no public thread setting; `import paddle` sets OMP_NUM_THREADS=1 if unset.
SIZES_KIB = [16, 64, 256, 1024, 4096, 16384, 65536, 262144]  # one tensor: 2**12 to 2**26 values


@paddle.no_grad()
def out_of_place(x):
    return paddle.sin(paddle.exp(x))


@paddle.no_grad()
def into_buffer(x, out):
    return paddle.sin(paddle.exp(x, out=out), out=out)


@paddle.no_grad()
def in_place(x):
    return x.exp_().sin_()


def fastest_runs(calls, rounds):
    """The fastest of `rounds` runs of each (function, arguments) call, taking turns: on a busy
    machine, noise only ever adds time, so the fastest run is the closest to what it costs."""
    best = [float("inf")] * len(calls)
    for _ in range(rounds):
        for i, (function, arguments) in enumerate(calls):
            start = time.perf_counter()
            function(*arguments)
            best[i] = min(best[i], time.perf_counter() - start)
    return best


cpu_start, wall_start = time.process_time(), time.perf_counter()
ratios = {"out of place / in place": [], "out of place / out=": [], "out= / in place": []}
for kib in SIZES_KIB:
    signal = paddle.rand([kib * 1024 // 4])
    buffer = paddle.empty_like(signal)
    rounds = max(4, min(50, 40_000 // kib))  # more runs for small tensors: each run is short
    t_out, t_buffer, t_in = fastest_runs(
        [(out_of_place, [signal]), (into_buffer, [signal, buffer]), (in_place, [signal])], rounds
    )
    ratios["out of place / in place"].append(round(t_out / t_in, 3))
    ratios["out of place / out="].append(round(t_out / t_buffer, 3))
    ratios["out= / in place"].append(round(t_buffer / t_in, 3))
# CPU time of all threads of the process per second of wall-clock time: about 1 on one thread
cpu_per_wall = (time.process_time() - cpu_start) / (time.perf_counter() - wall_start)

print("size (KiB)              " + "".join(f"{kib:>8}" for kib in SIZES_KIB))
for name, values in ratios.items():
    print(f"{name:24}" + "".join(f"{value:8.2f}" for value in values))
print(f"paddle.set_num_threads exists: {hasattr(paddle, 'set_num_threads')}")
print(
    f"OMP_NUM_THREADS: {os.environ.get('OMP_NUM_THREADS')}, CPU time per wall-clock time: {cpu_per_wall:.2f}"
)
