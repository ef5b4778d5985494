"""The GPU kit: every GPU case of the installed frameworks on a bare CUDA machine, in one call.

``python3 -m verified.gpu`` (README: "Running on a GPU") runs on a machine that has Python, a
CUDA build of PyTorch and numpy, but maybe no Paddle, no nox, no MkDocs, no network and a
pytest of another version. It needs only the pure-Python wheels carried with it
(:mod:`verified.gpu.wheels`, fetched here by ``python3 -m verified.gpu fetch``): it unpacks
them, runs the carried pytest on the GPU cases only (:mod:`verified.gpu.plugin`), records the
GPU cases of a framework that is not installed as skipped with that reason, writes
``results/gpu-<name>.json`` in the report schema with the host (GPU, driver, CUDA, the
framework's build, processor), copies it under ``$OUT`` where that folder exists, and prints a
one-screen summary (:mod:`verified.gpu.kit`). :mod:`verified.gpu.check` says what makes a
committed GPU report unfit to show.

``tests/test_gpu_sim.py`` (``nox -s gpu-sim``) runs it end to end in a virtualenv made like
that machine.
"""

import re

NAME = re.compile(r"^[a-z0-9][a-z0-9._-]*$")  # report names: $OUT takes letters, digits, . _ -
DEADLINE_S = 255.0  # pytest is interrupted after this; with GRACE_S the kit ends within 5 min
GRACE_S = 30.0  # after the deadline, pytest writes the report of what ran; then it is killed
CASE_TIMEOUT_S = 60.0  # each case's time limit is capped at this (GPU cases take seconds)
