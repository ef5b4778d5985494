import json
import os
import socket
import subprocess
import sys
from pathlib import Path

world_size = 2


def free_port():
    with socket.socket() as free:  # let the OS pick a free port
        free.bind(("127.0.0.1", 0))
        return free.getsockname()[1]


endpoints = [f"127.0.0.1:{free_port()}" for _ in range(world_size)]
worker = Path(__file__).with_name("ddp_token_loss_worker_paddle.py")
processes = []
try:
    for rank in range(world_size):  # what python -m paddle.distributed.launch would do
        env = dict(
            os.environ,
            PADDLE_DISTRI_BACKEND="gloo",  # CPU-only data parallelism
            PADDLE_TRAINER_ID=str(rank),
            PADDLE_TRAINERS_NUM=str(world_size),
            PADDLE_TRAINER_ENDPOINTS=",".join(endpoints),
            PADDLE_CURRENT_ENDPOINT=endpoints[rank],
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
same_on_all_ranks = all(report["grads"] == reports[0]["grads"] for report in reports)
errors = reports[0]["max_abs_error"]
print(f"items in the window, summed over processes: {reports[0]['global_count']:g}")
for name, error in errors.items():
    print(f"{name:44} max abs error to the full batch: {error:.3g}")
print("every process holds the same gradients:", same_on_all_ranks)
grads = reports[0]["grads"]
global_count_alone = [  # each element of the gradient, as a share of the right one
    wrong / right
    for wrong, right in zip(
        grads["sum / global count"], grads["sum / global count * world_size"], strict=True
    )
]
print("sum / global count, as a share of the right gradient:", global_count_alone)
