import json
import resource
import signal
import subprocess
import sys
from pathlib import Path

resource.setrlimit(resource.RLIMIT_CORE, (0, 0))  # a process that crashes leaves no core file
worker = Path(__file__).with_name("custom_op_twice_worker_paddle.py")
runs = {}
for first_call in ("retain_graph=False", "retain_graph=True"):
    # Each run in a process of its own: a crash ends only that process.
    process = subprocess.run(
        [sys.executable, str(worker), first_call], capture_output=True, text=True, timeout=60
    )
    if process.returncode < 0:
        ended = f"killed by {signal.Signals(-process.returncode).name}"
    else:
        ended = f"exit code {process.returncode}"
    printed = [json.loads(line) for line in process.stdout.splitlines() if line.startswith("{")]
    runs[first_call] = {"ended": ended, "printed": printed}
    print(f"first backward with {first_call}: {ended}")
    for line in printed:
        print("   ", line)
