import json
import os
import socket
import subprocess
import sys
from pathlib import Path

world_size = 2


def reserve_port():
    """A socket bound to a port the OS picked, kept open until the training processes end: no
    other program gets the port meanwhile, and SO_REUSEADDR lets Paddle listen on it too."""
    reserved = socket.socket()
    reserved.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    reserved.bind(("127.0.0.1", 0))
    return reserved


def launch(script):
    """Run the training script next to this file in world_size processes on this machine, as
    python -m paddle.distributed.launch would; return the report each process printed last."""
    reserved = [reserve_port() for _ in range(world_size)]
    endpoints = [f"127.0.0.1:{port.getsockname()[1]}" for port in reserved]
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
        for port in reserved:
            port.close()
    reports = []
    for rank, (process, (stdout, stderr)) in enumerate(zip(processes, outputs, strict=True)):
        lines = stdout.splitlines()
        if process.returncode != 0 or not lines:  # a failed process fails the launcher too
            raise RuntimeError(  # Paddle writes a fatal error to stdout, Python to stderr
                f"rank {rank} exited with code {process.returncode}:\n"
                f"stdout:\n{stdout[-2000:]}\nstderr:\n{stderr[-2000:]}"
            )
        reports.append(json.loads(lines[-1]))  # its report is the last line: logs may come first
    return reports
