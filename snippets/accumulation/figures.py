"""Figures of the gradient accumulation article, drawn from the claims report at build time."""

from __future__ import annotations

import matplotlib.pyplot as plt
from matplotlib.figure import Figure
from matplotlib.lines import Line2D

COUNTS = (1, 2, 4, 8)
LABELS = {
    "en": {
        "xlabel": "micro-batches (1,024 samples each)",
        "ylabel": "peak allocated memory (MiB)",
        "big": "one big batch",
        "list": "list of losses, one backward",
        "accumulate": "true accumulation",
        "measured": "measured",
        "theoretical": "theoretical",
        "saved": "saved activations",
        "frameworks": {"paddle": "PaddlePaddle", "torch": "PyTorch"},
    },
    "zh": {
        "xlabel": "微批次数（每个微批次 1024 个样本）",
        "ylabel": "已分配内存峰值（MiB）",
        "big": "一个大批次",
        "list": "损失列表 + 一次反向传播",
        "accumulate": "真正的梯度累积",
        "measured": "实测值",
        "theoretical": "理论值",
        "saved": "保存的激活值",
        "frameworks": {"paddle": "飞桨", "torch": "PyTorch"},
    },
}
STYLES = {
    "big": {"color": "#7986cb", "marker": "s"},
    "list": {"color": "#ef8a62", "marker": "o"},
    "accumulate": {"color": "#1b9e77", "marker": "^"},
}
GREY = "#666666"


def draw(report, lang: str) -> dict[str, Figure]:
    return {name: figure(report, lang) for name, figure in FIGURES.items()}


def memory(report, lang: str) -> Figure:
    """Each method's measured peaks (markers) and the theoretical figures the claim checks
    them against (dashed: the count of what is alive at the peak), with the saved
    activations (dotted) for reference."""
    text = LABELS[lang]
    fig, axes = plt.subplots(1, 2, figsize=(9, 3.8), sharey=True)
    for ax, (framework, name) in zip(axes, text["frameworks"].items(), strict=True):
        observed = report.get("accumulation.memory", framework)["observed"]
        measured, theoretical = observed["bytes"], observed["theoretical_bytes"]
        saved = report.get("accumulation.memory-saved", framework)["observed"]["value"]
        for method, style in STYLES.items():
            ax.plot(
                COUNTS,
                [measured[f"{method}-{n}"] / 2**20 for n in COUNTS],
                linestyle="none",
                markersize=7,
                label=text[method],
                **style,
            )
            ax.plot(
                COUNTS,
                [theoretical[f"{method}-{n}"] / 2**20 for n in COUNTS],
                linestyle="--",
                linewidth=1.2,
                color=style["color"],
            )
        ax.plot(
            COUNTS,
            [saved[f"saved-{n}"] / 2**20 for n in COUNTS],
            linestyle=":",
            color=GREY,
            label=text["saved"],
        )
        ax.set_xticks(COUNTS)
        ax.set_xlabel(text["xlabel"])
        ax.set_title(name)
        ax.grid(alpha=0.3)
        ax.spines[["top", "right"]].set_visible(False)
    axes[0].set_ylabel(text["ylabel"])
    axes[0].set_ylim(bottom=0)
    handles, labels = axes[0].get_legend_handles_labels()
    handles += [
        Line2D([], [], linestyle="none", marker="o", color=GREY),
        Line2D([], [], linestyle="--", color=GREY),
    ]
    labels += [text["measured"], text["theoretical"]]
    fig.legend(
        handles, labels, loc="lower center", ncol=3, frameon=False, bbox_to_anchor=(0.5, -0.16)
    )
    fig.tight_layout()
    return fig


# Each figure, by the name of its file (docs/<lang>/figures/<name>.svg).
FIGURES = {"accumulation-memory": memory}
