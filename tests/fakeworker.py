"""A stand-in for ``verified.worker`` that speaks its protocol without a framework, so that the
runner's process handling (start, requests, timeouts, crashes, clean-up) is tested in
milliseconds: ``python -m tests.fakeworker <framework> <device>``.

``FAKE_WORKER_START`` = ``hang`` or ``die`` misbehaves at start; a request's ``id`` chooses
what happens: ``hang`` never answers, ``die`` exits with code 3 after writing to stderr,
anything else answers with what the worker saw; ``FAKE_WORKER_EXIT_DELAY`` (seconds) delays
its exit at EOF; ``FAKE_WORKER_TIMING`` (a JSON object) is added to the answer of a timing
case (with the cores the process may use, as ``cpus``). With ``--fork``, like the real worker, each request is answered by a child
process forked for it (its ``cwd`` request key honoured).
"""

import json
import os
import sys
import time

framework, device = sys.argv[1], sys.argv[2]
fork = sys.argv[3:] == ["--fork"]
start = os.environ.get("FAKE_WORKER_START")
if start == "hang":
    time.sleep(60)
if start == "die":
    print("Traceback (most recent call last):", file=sys.stderr)
    print("ImportError: cannot import the framework", file=sys.stderr)
    sys.exit(4)
info = {
    "python": "3.11.7",
    "framework": framework,
    "device": device,
    "version": "9.9.9",
    "cuda_available": os.environ.get("FAKE_WORKER_CUDA") == "1",
    "why_no_gpu": None if os.environ.get("FAKE_WORKER_CUDA") == "1" else "no GPU in the fake",
    "why_no_gpu_code": None if os.environ.get("FAKE_WORKER_CUDA") == "1" else "fake-no-gpu",
}
print(json.dumps({"ready": info}), flush=True)


def answer(request: dict) -> None:
    if request["id"] == "hang":
        time.sleep(60)
    if request["id"] == "die":
        print("segmentation fault (pretend)", file=sys.stderr, flush=True)
        os._exit(3)
    if request.get("cwd"):
        os.chdir(request["cwd"])
    reply = {
        "pid": os.getpid(),
        "parent": os.getppid(),
        "cwd": os.getcwd(),
        "request": request,
        "output": "",
        "tensor_devices": {device: 1},
        "environ": {k: os.environ.get(k) for k in ("OMP_WAIT_POLICY", "PYTHONUNBUFFERED")},
        "allocator": {
            k: v
            for k, v in sorted(os.environ.items())
            if k.startswith("MALLOC_") or k == "GLIBC_TUNABLES"
        },
    }
    if request.get("kind") == "timing":  # FAKE_WORKER_TIMING's figures (JSON), and its cores
        reply.update(json.loads(os.environ.get("FAKE_WORKER_TIMING", "{}")))
        reply["cpus"] = sorted(os.sched_getaffinity(0))
    print(json.dumps(reply), flush=True)


for line in sys.stdin:
    request = json.loads(line)
    if not fork:
        answer(request)
        continue
    child = os.fork()
    if child == 0:
        answer(request)
        os._exit(0)
    os.waitpid(child, 0)
time.sleep(float(os.environ.get("FAKE_WORKER_EXIT_DELAY", "0")))  # a slow exit at EOF
