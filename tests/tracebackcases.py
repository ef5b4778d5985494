"""What the traceback box is tried with, by the fast tests (tests/test_tracebacks.py) and in
Chromium (tests/e2e/test_browser_traceback.py): every message of the reports, the same messages
as another run or release prints them, whole tracebacks, and messages the site does not cover."""

from __future__ import annotations

import re

from verified import tracebacks

# Ten messages that practitioners meet with these frameworks and that no claim of this site
# observed: the box must say "not covered here" for each.
NOT_COVERED = (
    "RuntimeError: CUDA out of memory. Tried to allocate 2.00 GiB (GPU 0; 15.78 GiB total "
    "capacity; 13.20 GiB already allocated; 1.07 GiB free; 13.50 GiB reserved in total by PyTorch)",
    "RuntimeError: element 0 of tensors does not require grad and does not have a grad_fn",
    "RuntimeError: Expected all tensors to be on the same device, but found at least two "
    "devices, cuda:0 and cpu!",
    "RuntimeError: mat1 and mat2 shapes cannot be multiplied (64x128 and 256x10)",
    "RuntimeError: grad can be implicitly created only for scalar outputs",
    "RuntimeError: expected scalar type Float but found Double",
    "RuntimeError: The size of tensor a (3) must match the size of tensor b (4) at "
    "non-singleton dimension 1",
    "ValueError: (InvalidArgument) Broadcast dimension mismatch. Operands could not be broadcast "
    "together with the shape of X = [2, 3] and the shape of Y = [4, 5]. Received [3] in X is "
    "not equal to [5] in Y at i:1.",
    "RuntimeError: (PreconditionNotMet) Tensor holds no memory. Call Tensor::mutable_data firstly.",
    "ModuleNotFoundError: No module named 'paddle'",
)


def as_another_run_prints_it(text: str) -> str:
    """The message with what varies between runs and releases changed: numbers (shapes,
    versions, source lines), Paddle's tensor names, the op of a Paddle grad node, the
    ``Backward0`` suffix of PyTorch's node names (added where a release has none, dropped
    where it has one), the tensor type and device, Paddle's C++ source location."""
    varied = re.sub(r"\(at [^()\n]*\)", "(at ../paddle/phi/kernels/funcs/other.cc:1234)", text)
    varied = re.sub(r"generated_tensor_\d+", "generated_tensor_1093", varied)
    varied = re.sub(r"\b\d+\b", lambda m: str(int(m[0]) + 7), varied)
    if re.search(r"[A-Z]\w*Backward\d", varied):
        varied = re.sub(r"\b([A-Z]\w*?)Backward\d+\b", r"\1", varied)
    else:
        varied = re.sub(r"\b([Oo]utput \d+ of) ([A-Z]\w*)", r"\1 \2Backward0", varied)
    varied = varied.replace("torch.FloatTensor", "torch.cuda.HalfTensor")
    return re.sub(r"\b[A-Z][a-z]+GradNode\b", "SigmoidGradNode", varied)


def in_a_traceback(text: str) -> str:
    """The message as the last lines of a whole traceback, frames and source lines above."""
    return (
        "Traceback (most recent call last):\n"
        '  File "/home/reader/train.py", line 41, in <module>\n'
        "    loss.backward()\n"
        '  File "/usr/lib/python3.11/site-packages/framework/tensor.py", line 525, in backward\n'
        "    run_backward(\n"
        "    ^^^^^^^^^^^^^^^^^^^^^^^^\n"
        f"{text}\n"
    )


def answering_entries(asset: dict, text: str) -> set[str]:
    """The entries that show this message: each entry with a message whose words include every
    word of it (a line shown in two entries may open either)."""
    pasted = set(tracebacks.tokens(tracebacks.message_part(text)))
    return {m["entry"] for m in asset["messages"] if pasted <= set(tracebacks.tokens(m["text"]))}


def cases(asset: dict) -> list[dict]:
    """(name, text, the entries that may answer it, its framework, the releases that print it)
    for every message of the asset: as the report holds it, as another run prints it, and each
    inside a whole traceback."""
    found = []
    for i, item in enumerate(asset["messages"]):
        wanted = answering_entries(asset, item["text"])
        for kind, text in (
            ("exact", item["text"]),
            ("varied", as_another_run_prints_it(item["text"])),
            ("traceback", in_a_traceback(item["text"])),
            ("varied-traceback", in_a_traceback(as_another_run_prints_it(item["text"]))),
        ):
            found.append(
                {
                    "name": f"{item['entry']}-{item['framework']}-{i}-{kind}",
                    "text": text,
                    "entries": sorted(wanted),
                    "framework": item["framework"],
                    "releases": item["releases"],
                }
            )
    return found
