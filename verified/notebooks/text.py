"""The words and code the generator adds to a notebook, in each language.

Everything in a notebook that comes neither from the article page nor from a snippet file is
here: the framework's name in the title, the banner under the title, the note before
machine-dependent cells, the titles of admonitions, the install cell (the framework at its
verified release when missing) and the setup cell (device choice, seed,
the ``%%gpu_only`` magic, the ``__file__`` shim).
"""

from __future__ import annotations

TEXT = {
    "en": {
        "intro": (
            "> This notebook is the {fw} version of the article [{title}]({url}): the same "
            "text and code, executed as it stands. Run the cells from top to bottom. The first "
            "code cell installs {fw} at the release the notebook was verified with if it is "
            "missing (on Colab, for example), and says what to expect on another release; the "
            "second chooses the device: the GPU when one is available, otherwise the CPU; set "
            "the environment variable `AUTOGRAD_DEVICE=cpu` or `AUTOGRAD_DEVICE=gpu` before "
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
            "并已完整执行。请从上到下依次运行各单元格。第一个代码单元格在缺少{fw}时（例如在 Colab "
            "中）安装验证本笔记本时使用的版本，并说明在其他版本上会看到什么；第二个代码单元格负责"
            "选择设备：有 GPU 时使用 GPU，否则使用 CPU；如果想自己指定，可以在启动 Jupyter 之前设置环境变量 "
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
# Run this cell after the install cell. It chooses the device for every cell below:
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
# Run this cell after the install cell. It chooses the device for every cell below:
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

# What a %%gpu_only cell prints on the CPU, in the notebook's language (execute.py knows a
# skipped cell by it).
GPU_SKIPPED = {
    "en": "Skipped: this cell needs a GPU, and this notebook runs on the CPU.",
    "zh": "已跳过：这个单元格需要 GPU，而这个笔记本运行在 CPU 上。",
}
GPU_ONLY_MAGIC = '''

from IPython.core.magic import register_cell_magic


@register_cell_magic
def gpu_only(line, cell):
    """Cells marked %%gpu_only need a GPU: on the CPU they are skipped with a message."""
    if device != "gpu":
        print("{skipped}")
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
        "Run this cell after the install cell. It chooses the device for every cell below:": "请在安装单元格之后运行本单元格。它为下面所有单元格选择设备：",
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
        code += GPU_ONLY_MAGIC.replace("{skipped}", GPU_SKIPPED[lang])
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


# The install cell, the notebook's first code cell: Colab has PyTorch but not Paddle, and a
# fresh Python has neither. It installs the framework at the release the notebook was verified
# with (the pin of pyproject.toml's `frameworks` group) only when the framework is missing,
# and says what to expect on another release: the releases the release matrix checked (the
# environments of results/matrix.toml with a report in results/) and the section of the
# verification report that shows them. tests/test_install_cell.py runs it in a fresh virtualenv.
INSTALL = """\
# {first}
# {second}
import importlib.metadata
import importlib.util
import subprocess
import sys

VERIFIED = "{version}"  # {verified_comment}
CHECKED = {checked}  # {checked_comment}
if importlib.util.find_spec("{module}") is None:
    # {pip_comment}
    subprocess.check_call([sys.executable, "-m", "pip", "install", "{requirement}"])
    importlib.invalidate_caches()
installed = importlib.metadata.version(importlib.metadata.packages_distributions()["{module}"][0])
release = installed.split("+")[0]  # {label_comment}
if release == VERIFIED:
    print(f"{same}")
else:
    print(f"{other}")
    print(
        "{matrix}"
        + "{join}".join(CHECKED)
        + ("{checked_end}" if release in CHECKED else f"{unchecked_end}")
    )"""

INSTALL_TEXT = {
    "en": {
        "first": "Run this cell first. On Colab, SageMaker Studio Lab or any Python without {name},",
        "second": "it installs the release this notebook was verified with; an installed {name} stays.",
        "verified_comment": "the release the text and the outputs of this notebook come from",
        "checked_comment": "the other releases the site's release matrix checked",
        "pip_comment": "`pip install {requirement}`, into the Python of this kernel",
        "same": "{name} {{installed}}: the release this notebook was verified with.",
        "label_comment": "a local label (+cpu, +cu126) is no part of the release",
        "other": "{name} {{installed}}; this notebook was verified with {{VERIFIED}}.",
        "matrix": "On another release an error message or a value may differ: the section "
        "“{section}” of the verification report shows, claim by claim, what holds on ",
        "join": ", ",
        "checked_end": ".",
        "unchecked_end": "; {{release}} was not checked.",
    },
    "zh": {
        "first": "请先运行本单元格。在 Colab、SageMaker Studio Lab 或任何未安装{name}的 Python 环境中，",
        "second": "它会安装验证本笔记本时使用的版本；已安装的{name}保持不变。",
        "verified_comment": "本笔记本的正文和输出来自这个版本",
        "checked_comment": "站点的版本矩阵检查过的其他版本",
        "pip_comment": "即 `pip install {requirement}`，安装到当前内核所用的 Python 中",
        "same": "{name} {{installed}}：即验证本笔记本时使用的版本。",
        "label_comment": "本地版本标签（+cpu、+cu126）不属于版本号",
        "other": "当前为{name} {{installed}}，本笔记本是在 {{VERIFIED}} 上验证的。",
        "matrix": "在其他版本上，报错信息或数值可能不同：验证报告的“{section}”一节逐条列出了"
        "各断言在 ",
        "join": "、",
        "checked_end": " 上是否成立。",
        "unchecked_end": " 上是否成立；{{release}} 不在其中。",
    },
}


def install_code(framework: str, lang: str) -> str:
    """The install cell (see :data:`INSTALL`) for one framework, in ``lang``."""
    import tomllib

    from verified.claims import ROOT
    from verified.notebooks.base import DISTRIBUTIONS
    from verified.pages.words import TEXT as PAGE_TEXT

    distribution = DISTRIBUTIONS[framework]
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    pins = [
        r
        for r in pyproject["dependency-groups"]["frameworks"]
        if isinstance(r, str) and r.startswith(f"{distribution}==")
    ]
    if len(pins) != 1:
        raise ValueError(
            f"pyproject.toml: the `frameworks` group must pin {distribution} once "
            f"({distribution}==<release>), found {pins}"
        )
    requirement = pins[0]
    matrix = tomllib.loads((ROOT / "results" / "matrix.toml").read_text(encoding="utf-8"))
    checked = [
        env["version"]
        for env in matrix["environment"]
        if env["framework"] == framework and (ROOT / "results" / f"{env['name']}.json").is_file()
    ]
    name = TEXT[lang]["frameworks"][framework]
    words = {
        key: value.format(name=name, requirement=requirement, section=PAGE_TEXT[lang]["matrix"])
        for key, value in INSTALL_TEXT[lang].items()
    }
    return INSTALL.format(
        **words,
        version=requirement.partition("==")[2],
        checked=repr(checked).replace("'", '"'),
        module=framework,
        requirement=requirement,
    )
