"""Start the training processes of a data-parallel snippet, as torchrun would."""

import json
import os
import socket
import subprocess
import sys
from pathlib import Path


def launch(worker, world_size=2):
    """Run `worker`, a script next to this file, in `world_size` processes; their JSON reports."""
    with socket.socket() as free:  # let the OS pick a free port for the rendezvous
        free.bind(("127.0.0.1", 0))
        port = free.getsockname()[1]
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
