"""The words and code the generator adds to a notebook, in each language.

Everything in a notebook that comes neither from the article page nor from a snippet file is
here: the framework's name in the title, the banner under the title, the note before
machine-dependent cells, the titles of admonitions, and the setup cell (device choice, seed,
the ``%%gpu_only`` magic, the ``__file__`` shim).
"""

from __future__ import annotations

TEXT = {
    "en": {
        "intro": (
            "> This notebook is the {fw} version of the article [{title}]({url}): the same "
            "text and code, executed as it stands. Run the cells from top to bottom. The first "
            "code cell chooses the device: the GPU when one is available, otherwise the CPU; "
            "set the environment variable `AUTOGRAD_DEVICE=cpu` or `AUTOGRAD_DEVICE=gpu` before "
            "starting Jupyter to choose yourself. The values quoted in the text were observed "
            "when the article was verified (see the [verification report]({report}))."
        ),
        "machine": (
            "*The output of the next cell depends on the machine (allocator, processor, load): "
            "your figures may differ from the ones quoted in the text.*"
        ),
        "frameworks": {"paddle": "PaddlePaddle", "torch": "PyTorch"},
        "admonition": {
            "note": "Note",
            "abstract": "Abstract",
            "info": "Info",
            "tip": "Tip",
            "success": "Success",
            "question": "Question",
            "warning": "Warning",
            "failure": "Failure",
            "danger": "Danger",
            "bug": "Bug",
            "example": "Example",
            "quote": "Quote",
        },
    },
    "zh": {
        "intro": (
            "> 这是文章[{title}]({url})的 Jupyter 笔记本版本（{fw}）：正文和代码与文章一致，"
            "并已完整执行。请从上到下依次运行各单元格。第一个代码单元格负责选择设备：有 GPU 时"
            "使用 GPU，否则使用 CPU；如果想自己指定，可以在启动 Jupyter 之前设置环境变量 "
            "`AUTOGRAD_DEVICE=cpu` 或 `AUTOGRAD_DEVICE=gpu`。正文中引用的数值是验证这篇文章时"
            "观测到的，见[验证报告]({report})。"
        ),
        "machine": "*下一个单元格的输出取决于运行它的机器（内存分配器、处理器、负载），你得到的数据可能与正文引用的不同。*",
        "frameworks": {"paddle": "飞桨", "torch": "PyTorch"},
        "admonition": {
            "note": "注意",
            "abstract": "摘要",
            "info": "说明",
            "tip": "提示",
            "success": "成功",
            "question": "问题",
            "warning": "警告",
            "failure": "失败",
            "danger": "危险",
            "bug": "缺陷",
            "example": "示例",
            "quote": "引用",
        },
    },
}


SETUP = {
    "torch": """\
# Run this cell first. It chooses the device for every cell below (the code cells never do):
# the GPU when one is available, otherwise the CPU; AUTOGRAD_DEVICE=cpu|gpu overrides.
import os

import torch

gpu_available = torch.cuda.is_available()
device = os.environ.get("AUTOGRAD_DEVICE", "gpu" if gpu_available else "cpu").lower()
if device not in ("cpu", "gpu"):
    raise ValueError(f"AUTOGRAD_DEVICE must be 'cpu' or 'gpu', not {device!r}")
if device == "gpu" and not gpu_available:
    raise RuntimeError("AUTOGRAD_DEVICE=gpu, but torch.cuda.is_available() is False")
torch.set_default_device("cuda" if device == "gpu" else "cpu")
torch.manual_seed(0)  # fixed seed: the same numbers on every run
print(f"torch {torch.__version__}, default device: {device}")""",
    "paddle": """\
# Run this cell first. It chooses the device for every cell below (the code cells never do):
# the GPU when one is available, otherwise the CPU; AUTOGRAD_DEVICE=cpu|gpu overrides.
import os
import warnings

with warnings.catch_warnings():
    warnings.simplefilter("ignore")  # Paddle warns about a missing ccache on import
    import paddle

gpu_available = paddle.device.is_compiled_with_cuda() and paddle.device.cuda.device_count() > 0
device = os.environ.get("AUTOGRAD_DEVICE", "gpu" if gpu_available else "cpu").lower()
if device not in ("cpu", "gpu"):
    raise ValueError(f"AUTOGRAD_DEVICE must be 'cpu' or 'gpu', not {device!r}")
if device == "gpu" and not gpu_available:
    raise RuntimeError("AUTOGRAD_DEVICE=gpu, but Paddle sees no CUDA device")
paddle.set_device(device)
paddle.seed(0)  # fixed seed: the same numbers on every run
print(f"paddle {paddle.__version__}, default device: {device}")""",
}

GPU_ONLY_MAGIC = '''

from IPython.core.magic import register_cell_magic


@register_cell_magic
def gpu_only(line, cell):
    """Cells marked %%gpu_only need a GPU: on the CPU they are skipped with a message."""
    if device != "gpu":
        print("Skipped: this cell needs a GPU, and this notebook runs on the CPU.")
        return
    exec(compile(cell, "<gpu_only cell>", "exec"), get_ipython().user_ns)'''

FILE_SHIM = '''

# Some snippets start other scripts found next to themselves (Path(__file__).with_name(...));
# in a notebook those scripts are written to the working directory by %%writefile cells.
__file__ = "{name}.ipynb"'''

# The setup cell's comments and docstring in the other languages (the code stays as it is:
# :func:`verified.notebooks.comments.translate` checks it).
SETUP_COMMENTS = {
    "zh": {
        "Run this cell first. It chooses the device for every cell below (the code cells never do):": "请先运行本单元格。它为下面所有单元格选择设备（后面的代码单元格都不会自己选择）：",
        "the GPU when one is available, otherwise the CPU; AUTOGRAD_DEVICE=cpu|gpu overrides.": "有 GPU 时使用 GPU，否则使用 CPU；设置 AUTOGRAD_DEVICE=cpu|gpu 可自行指定。",
        "Paddle warns about a missing ccache on import": "导入飞桨时会警告找不到 ccache",
        "fixed seed: the same numbers on every run": "固定随机种子：每次运行得到相同的数值",
        "Cells marked %%gpu_only need a GPU: on the CPU they are skipped with a message.": "标记为 %%gpu_only 的单元格需要 GPU：在 CPU 上运行时跳过，并打印一条说明。",
        "Some snippets start other scripts found next to themselves (Path(__file__).with_name(...));": "有些代码片段会启动与自己位于同一目录的其他脚本（Path(__file__).with_name(...)）；",
        "in a notebook those scripts are written to the working directory by %%writefile cells.": "在笔记本中，这些脚本由 %%writefile 单元格写入当前工作目录。",
    },
}


def setup_code(framework: str, lang: str, *, gpu_only: bool, file_name: str | None) -> str:
    """The first code cell: the device, the seed, and the ``%%gpu_only`` magic and the
    ``__file__`` shim where the notebook needs them; its comments in ``lang``."""
    from verified.notebooks.comments import SOURCE_LANG, translate

    code = SETUP[framework]
    if gpu_only:
        code += GPU_ONLY_MAGIC
    if file_name is not None:
        code += FILE_SHIM.format(name=file_name)
    if lang == SOURCE_LANG:
        return code
    return translate(
        code,
        lang,
        SETUP_COMMENTS.get(lang, {}),
        where=f"the setup cell ({framework})",
        table_at=f"SETUP_COMMENTS[{lang!r}] in verified/notebooks/text.py",
    )
