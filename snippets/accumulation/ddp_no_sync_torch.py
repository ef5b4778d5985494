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

worker = Path(__file__).with_name("ddp_worker_torch.py")
processes = []
for rank in range(world_size):  # what torchrun --nproc-per-node=2 would do
    env = dict(
        os.environ,
        MASTER_ADDR="127.0.0.1",
        MASTER_PORT=str(port),
        RANK=str(rank),
        WORLD_SIZE=str(world_size),
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
