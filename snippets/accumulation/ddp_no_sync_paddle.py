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
worker = Path(__file__).with_name("ddp_worker_paddle.py")
processes = []
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
        subprocess.Popen([sys.executable, str(worker)], env=env, stdout=subprocess.PIPE, text=True)
    )
try:
    outputs = [process.communicate(timeout=90)[0] for process in processes]
finally:
    for process in processes:  # never leave a training process behind
        process.kill()
        process.wait()
report = json.loads(outputs[0])  # what rank 0 printed
for mode, result in report.items():
    print(f"{mode}: {result}")
