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


def launch(script):
    """Run the training script next to this file in world_size processes on this machine, as
    python -m paddle.distributed.launch would; return the report each process printed last."""
    endpoints = [f"127.0.0.1:{free_port()}" for _ in range(world_size)]
    worker = Path(__file__).with_name(script)
    processes = []
    try:
        for rank in range(world_size):
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
            raise RuntimeError(
                f"rank {rank} exited with code {process.returncode}:\n{stderr[-2000:]}"
            )
        reports.append(json.loads(lines[-1]))  # its report is the last line: logs may come first
    return reports
