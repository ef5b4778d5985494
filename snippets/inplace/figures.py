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
        "out_of_place": "out of place: x.sin().sin().sin()",
        "in_place": "in place: x.clone().sin_().sin_().sin_()",
    },
    "zh": {
        "title": "连续三次 sin 的已分配内存峰值（CPU，输入 {input_mib:g} MiB）",
        "ylabel": "已分配内存峰值（MiB）",
        "inference": "推理",
        "training": "训练",
        "out_of_place": "非原位：x.sin().sin().sin()",
        "in_place": "原位：x.clone().sin_().sin_().sin_()",
    },
}
FRAMEWORKS = {"paddle": "PaddlePaddle", "torch": "PyTorch"}
COLOURS = {"out_of_place": "#7986cb", "in_place": "#ef8a62"}


def draw(report, lang: str) -> dict[str, Figure]:
    text = LABELS[lang]
    fig, axes = plt.subplots(1, 2, figsize=(9, 3.6), sharey=True)
    width = 0.38
    for ax, (framework, name) in zip(axes, FRAMEWORKS.items(), strict=True):
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
    # One input tensor is what the in-place chain allocates at inference (its clone).
    theoretical = report.get("inplace.memory-training", "torch")["observed"]["theoretical_bytes"]
    fig.suptitle(text["title"].format(input_mib=theoretical["inference_in_place"] / 2**20), y=1.04)
    return {"inplace-memory": fig}
