"""Start the training processes of a data-parallel snippet, as paddle.distributed.launch would."""

import json
import os
import socket
import subprocess
import sys
from pathlib import Path


def free_port():
    with socket.socket() as free:  # let the OS pick a free port
        free.bind(("127.0.0.1", 0))
        return free.getsockname()[1]


def launch(worker, world_size=2):
    """Run `worker`, a script next to this file, in `world_size` processes; their JSON reports."""
    endpoints = [f"127.0.0.1:{free_port()}" for _ in range(world_size)]
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
                    [sys.executable, str(Path(__file__).with_name(worker))],
                    env=env,
                    stdout=subprocess.PIPE,
                    stderr=subprocess.PIPE,
                    text=True,
                )
            )
        outputs = [process.communicate(timeout=90) for process in processes]
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
