"""Figures of the gradient accumulation article, drawn from the claims report at build time."""

from __future__ import annotations

import matplotlib.pyplot as plt
from matplotlib.figure import Figure

COUNTS = (1, 2, 4, 8)
LABELS = {
    "en": {
        "xlabel": "micro-batches of 1,024 samples",
        "ylabel": "peak allocated memory (MiB)",
        "big": "one big batch",
        "list": "list of losses, one backward",
        "accumulate": "true accumulation",
        "theoretical": "saved activations (computed)",
    },
    "zh": {
        "xlabel": "微批次个数（每个 1,024 个样本）",
        "ylabel": "已分配内存峰值（MiB）",
        "big": "一个大批次",
        "list": "损失列表 + 一次反向传播",
        "accumulate": "真正的梯度累积",
        "theoretical": "保存的激活值（计算值）",
    },
}
FRAMEWORKS = {"paddle": "PaddlePaddle", "torch": "PyTorch"}
STYLES = {
    "big": {"color": "#7986cb", "marker": "s"},
    "list": {"color": "#ef8a62", "marker": "o"},
    "accumulate": {"color": "#1b9e77", "marker": "^"},
}


def draw(report, lang: str) -> dict[str, Figure]:
    text = LABELS[lang]
    fig, axes = plt.subplots(1, 2, figsize=(9, 3.8), sharey=True)
    for ax, (framework, name) in zip(axes, FRAMEWORKS.items(), strict=True):
        observed = report.get("accumulation.memory", framework)["observed"]
        measured, theoretical = observed["bytes"], observed["theoretical_bytes"]
        for method, style in STYLES.items():
            ax.plot(
                COUNTS,
                [measured[f"{method}-{n}"] / 2**20 for n in COUNTS],
                label=text[method],
                **style,
            )
        ax.plot(
            COUNTS,
            [theoretical[f"list-{n}"] / 2**20 for n in COUNTS],
            linestyle=":",
            color="#666666",
            label=text["theoretical"],
        )
        ax.set_xticks(COUNTS)
        ax.set_xlabel(text["xlabel"])
        ax.set_title(name)
        ax.grid(alpha=0.3)
        ax.spines[["top", "right"]].set_visible(False)
    axes[0].set_ylabel(text["ylabel"])
    axes[0].set_ylim(bottom=0)
    axes[0].legend(frameon=False, fontsize="small")
    fig.tight_layout()
    return {"accumulation-memory": fig}
