"""Figures of the in-place article, drawn from the claims report at build time."""

from __future__ import annotations

import matplotlib.pyplot as plt
from matplotlib.figure import Figure

LABELS = {
    "en": {
        "title": "Peak allocated memory of three sin in a row (CPU, {input_mib:g} MiB input)",
        "ylabel": "peak allocated memory (MiB)",
        "inference": "inference",
        "training": "training",
        "out_of_place": "out of place: (x * 2).sin().sin().sin()",
        "in_place": "in place: (x * 2).sin_().sin_().sin_()",
        "speed_title": "exp then sin at inference, by tensor size and allocator state (CPU, measured on this machine)",
        "speed_xlabel": "size of one tensor",
        "speed_ylabel": "times as fast (fastest runs)",
        "out of place / in place": "in place, against out of place",
        "out of place / out=": "out=, against out of place",
        "out= / in place": "in place, against out=",
        "as_fast": "as fast",
        "state_new": "every result new memory",
        "state_reused": "freed memory reused",
        "frameworks": {"paddle": "PaddlePaddle", "torch": "PyTorch"},
    },
    "zh": {
        "title": "连续三次 sin 的已分配内存峰值（CPU，输入 {input_mib:g} MiB）",
        "ylabel": "已分配内存峰值（MiB）",
        "inference": "推理",
        "training": "训练",
        "out_of_place": "非原位写法：(x * 2).sin().sin().sin()",
        "in_place": "原位写法：(x * 2).sin_().sin_().sin_()",
        "speed_title": "推理时先 exp 再 sin：不同张量大小与分配器状态下的速度比（CPU，本机实测）",
        "speed_xlabel": "单个张量的大小",
        "speed_ylabel": "速度倍数（取最快一次运行）",
        "out of place / in place": "原位写法相对非原位写法",
        "out of place / out=": "out= 写法相对非原位写法",
        "out= / in place": "原位写法相对 out= 写法",
        "as_fast": "一样快",
        "state_new": "每个结果都是新内存",
        "state_reused": "复用已释放的内存",
        "frameworks": {"paddle": "飞桨", "torch": "PyTorch"},
    },
}
COLOURS = {"out_of_place": "#7986cb", "in_place": "#ef8a62"}
SERIES = {
    "out of place / in place": ("#ef8a62", "o", "-"),
    "out of place / out=": ("#7986cb", "s", "--"),
    "out= / in place": ("#4d9221", "^", ":"),
}


def draw(report, lang: str) -> dict[str, Figure]:
    return {name: figure(report, lang) for name, figure in FIGURES.items()}


def memory(report, lang: str) -> Figure:
    text = LABELS[lang]
    fig, axes = plt.subplots(1, 2, figsize=(9, 3.6), sharey=True)
    width = 0.38
    for ax, (framework, name) in zip(axes, text["frameworks"].items(), strict=True):
        measured = report.get("inplace.memory-training", framework)["observed"]["bytes"]
        for offset, style in ((-width / 2, "out_of_place"), (width / 2, "in_place")):
            values = [measured[f"{mode}_{style}"] / 2**20 for mode in ("inference", "training")]
            bars = ax.bar(
                [i + offset for i in range(2)],
                values,
                width,
                label=text[style],
                color=COLOURS[style],
            )
            ax.bar_label(bars, fmt="%.0f", padding=2)
        ax.set_xticks(range(2), [text["inference"], text["training"]])
        ax.set_title(name)
        ax.spines[["top", "right"]].set_visible(False)
    axes[0].set_ylabel(text["ylabel"])
    axes[0].set_ylim(0, 1.15 * max(ax.get_ylim()[1] for ax in axes))  # room for the labels
    handles, labels = axes[0].get_legend_handles_labels()
    fig.legend(
        handles, labels, loc="lower center", ncol=2, frameon=False, bbox_to_anchor=(0.5, -0.08)
    )
    # At inference the in-place chain holds one tensor of the input's size: x * 2.
    theoretical = report.get("inplace.memory-training", "torch")["observed"]["theoretical_bytes"]
    fig.suptitle(text["title"].format(input_mib=theoretical["inference_in_place"] / 2**20), y=1.04)
    return fig


def size_label(kib: int) -> str:
    return f"{kib // 1024} MiB" if kib >= 1024 else f"{kib} KiB"


STATES = {  # the sweep claim of each allocator state, top row first
    "state_new": "inplace.speed-sizes",
    "state_reused": "inplace.speed-sizes-reused",
}


def speed_sizes(report, lang: str) -> Figure:
    """The ratios of the fastest runs at each size, as the sweep claims observed them: one row
    per allocator state, one column per framework."""
    text = LABELS[lang]
    fig, grid = plt.subplots(2, 2, figsize=(9, 6.4), sharey=True, sharex=True)
    top = 1.0
    for row, (state, claim) in zip(grid, STATES.items(), strict=True):
        for ax, (framework, name) in zip(row, text["frameworks"].items(), strict=True):
            value = report.get(claim, framework)["observed"]["value"]
            sizes = value["sizes_kib"]
            for series, (colour, marker, line) in SERIES.items():
                ratios = value["ratios"][series]
                top = max(top, *ratios)
                ax.plot(sizes, ratios, marker=marker, linestyle=line, color=colour,
                        label=text[series])  # fmt: skip
            ax.axhline(1.0, color="#888888", linewidth=0.8)
            ax.annotate(
                text["as_fast"], (sizes[-1], 1.0), xytext=(0, -11), textcoords="offset points",
                ha="right", fontsize=8, color="#666666",
            )  # fmt: skip
            ax.set_xscale("log", base=2)
            ax.set_xticks(sizes, [size_label(kib) for kib in sizes], rotation=45)
            ax.minorticks_off()
            ax.set_title(f"{name}: {text[state]}", fontsize=10)
            ax.spines[["top", "right"]].set_visible(False)
        row[0].set_ylabel(text["speed_ylabel"])
    for ax in grid[1]:
        ax.set_xlabel(text["speed_xlabel"])
    grid[0][0].set_ylim(0, 1.1 * top)
    handles, labels = grid[0][0].get_legend_handles_labels()
    fig.legend(
        handles, labels, loc="lower center", ncol=3, frameon=False, bbox_to_anchor=(0.5, -0.06)
    )
    fig.suptitle(text["speed_title"], y=1.0)
    fig.tight_layout()
    return fig


# Each figure, by the name of its file (docs/<lang>/figures/<name>.svg).
FIGURES = {"inplace-memory": memory, "inplace-speed-sizes": speed_sizes}
