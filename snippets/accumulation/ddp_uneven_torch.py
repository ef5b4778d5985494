import json
import os
import socket
import subprocess
import sys
from pathlib import Path

world_size = 2
with socket.socket() as free:  # let the OS pick a free port for the rendezvous
    free.bind(("127.0.0.1", 0))
    port = free.getsockname()[1]

worker = Path(__file__).with_name("ddp_uneven_worker_torch.py")
processes = []
try:
    for rank in range(world_size):  # what torchrun --nproc-per-node=2 would do
        env = dict(
            os.environ,
            MASTER_ADDR="127.0.0.1",
            MASTER_PORT=str(port),
            RANK=str(rank),
            WORLD_SIZE=str(world_size),
        )
        processes.append(
            subprocess.Popen(
                [sys.executable, str(worker)],
                env=env,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
            )
        )
    outputs = [process.communicate(timeout=60) for process in processes]
finally:
    for process in processes:  # never leave a training process behind
        process.kill()
        process.wait()

reports = []
for rank, (process, (stdout, stderr)) in enumerate(zip(processes, outputs, strict=True)):
    lines = stdout.splitlines()
    if process.returncode != 0 or not lines:  # a failed process fails the launcher too
        raise RuntimeError(f"rank {rank} exited with code {process.returncode}:\n{stderr[-2000:]}")
    reports.append(json.loads(lines[-1]))  # its report is the last line: logs may come first
for rank, windows in enumerate(reports):
    print(f"rank {rank}: windows {[window['batches'] for window in windows]}")
# Each all-reduce pairs the n-th window of every process: equal gradients show which ones met.
paired = zip(*reports, strict=True)
equal_after_all_reduce = [
    len({str(window["grad"]) for window in windows}) == 1 for windows in paired
]
print("gradients equal on both processes after each all-reduce:", equal_after_all_reduce)
