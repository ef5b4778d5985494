"""Search as a reader uses it: type a query in the header's search box, read the results.

Two kinds of query: words that must find an article, and what a reader pastes from an error
message (a sentence, the operation it names, a Python operator), which must find the message's
entry on the error index. Each language's search lists that language's pages only.

Every query of a language runs in one page of that language's site, loaded once: the search
box is cleared (the list empties), the query typed, and the results read once they are stable,
as a reader searching again would. A page that fails a query is replaced by a fresh one.

The rank of a result is its place in Material's own order: every section and page the search
returned, sorted by the score Material shows in ``data-md-score`` (its ranking, after its
post-query boosts), ties in the order of the list. The ranks of every query are written to
``build/e2e/search-ranks.json``.
"""

from __future__ import annotations

import json
import re
import time
from urllib.parse import urlsplit

import pytest
from browserkit import TIMEOUT_MS, VIEWPORT
from sitemodel import ARTEFACTS, LANGS, content, lang_prefix, page_at, parse

pytestmark = pytest.mark.e2e

TOP = 3  # the right article, or the right error-index entry, must be among the first three
ERRORS = "errors/"  # the error index, in each language below lang_prefix(lang)
RANKS: dict[str, dict] = {}

ARTICLE_CASES = {
    # test id: (language of the site searched, query, the article it must find: a page of its
    # section, the overview or a sub-page, once the articles are sections)
    "zh-gradient-accumulation": ("zh", "梯度累积", "accumulation/"),
    "zh-leaf-tensor": ("zh", "叶子张量", "inplace/"),
    "en-version-counter": ("en", "version counter", "inplace/"),
    "en-gradient-accumulation": ("en", "gradient accumulation", "accumulation/"),
    "en-retain-graph": ("en", "retain_graph", "accumulation/"),
    "en-no-sync": ("en", "no_sync", "accumulation/"),
    "en-inference-mode": ("en", "inference_mode", "inplace/"),
    "zh-inference-mode": ("zh", "推理模式", "inplace/"),
    "zh-recomputation": ("zh", "前向重计算", "accumulation/"),
    "zh-gradient-merge": ("zh", "梯度累加", "accumulation/"),
}

# A symptom or a heading's words -> the sub-page that answers it (a page of its own, not just
# its article): the sub-pages of issue 21, in both languages; since issue 29, every sub-page.
SUB_PAGE_CASES = {
    "en-checkpoint-inplace": (
        "en",
        "checkpoint relu inplace=True error in backward",
        "accumulation/recomputation/",
    ),
    "zh-recompute-inplace": (
        "zh",
        "recompute 分段里 relu_ 原位写入 报错",
        "accumulation/recomputation/",
    ),
    "en-stale-grad-reference": (
        "en",
        "kept a reference to .grad, stale after zero_grad",
        "accumulation/gradients-add-up/",
    ),
    "zh-stale-grad-reference": (
        "zh",
        "保留的 .grad 引用 clear_grad 之后过时",
        "accumulation/gradients-add-up/",
    ),
    "en-mark-non-differentiable": (
        "en",
        "custom Function returns a mask that needs no gradient mark_non_differentiable",
        "inplace/custom-functions/",
    ),
    "zh-mark-non-differentiable": (
        "zh",
        "PyLayer 原样返回不需要梯度的输入",
        "inplace/custom-functions/",
    ),
    "en-pylayer-backward-never-runs": (
        "en",
        "PyLayer backward never called weight gets no gradient",
        "inplace/custom-functions/",
    ),
    "zh-pylayer-backward-never-runs": (
        "zh",
        "PyLayer 反向从不执行 权重没有梯度",
        "inplace/custom-functions/",
    ),
    "en-inplace-layer-loop": (
        "en",
        "loop that switches every layer to inplace=True",
        "inplace/in-place-layers/",
    ),
    "zh-inplace-layer-loop": (
        "zh",
        "把每个网络层都切换为 inplace=True 的循环",
        "inplace/in-place-layers/",
    ),
    "en-output-0-of": (
        "en",
        "what output 0 of and the version numbers tell you",
        "inplace/finding-the-culprit/",
    ),
    "zh-output-0-of": ("zh", "output 0 of 和版本号说明了什么", "inplace/finding-the-culprit/"),
    "en-column-by-column": ("en", "result built column by column", "inplace/partial-writes/"),
    "zh-column-by-column": ("zh", "逐列构造的结果", "inplace/partial-writes/"),
    "en-ddp-batchnorm": (
        "en",
        "DistributedDataParallel BatchNorm two forwards before one backward",
        "inplace/data-parallel-two-forwards/",
    ),
    "zh-ddp-batchnorm": (
        "zh",
        "BatchNorm 一次反向传播之前的两次前向计算",
        "inplace/data-parallel-two-forwards/",
    ),
    "en-iterating-views": (
        "en",
        "iterating over a tensor zip chunk split unbind",
        "inplace/hidden-views/",
    ),
    "zh-iterating-views": ("zh", "遍历张量 意料之外的视图", "inplace/hidden-views/"),
    "en-forward-writes": (
        "en",
        "writes in the forward pass through .data",
        "inplace/forward-writes/",
    ),
    "zh-forward-writes": ("zh", "在前向计算中通过 .data 写入", "inplace/forward-writes/"),
    "en-gan-order": (
        "en",
        "discriminator steps before the generator's backward",
        "accumulation/several-optimizers/",
    ),
    "zh-gan-order": ("zh", "判别器在生成器的反向传播之前更新", "accumulation/several-optimizers/"),
    "en-no-sync-scope": ("en", "no_sync() around the backward only", "accumulation/no-sync/"),
    "zh-no-sync-scope": ("zh", "no_sync() 必须包住什么", "accumulation/no-sync/"),
    "en-loss-not-divided": ("en", "not dividing the loss", "accumulation/loss-not-divided/"),
    # the reader test of issue 20/21: symptoms and pasted messages as practitioners type them
    "en-speed-question": ("en", "is in place faster", "inplace/speed/"),
    "zh-speed-question": ("zh", "原位操作能加速吗", "inplace/speed/"),
    "zh-diverges": ("zh", "加上梯度累积后发散", "accumulation/loss-not-divided/"),
    "en-unbind-message": (
        "en",
        "Output 0 of UnbindBackward0 is a view and is being modified inplace",
        "inplace/hidden-views/",
    ),
    "zh-loss-not-divided": ("zh", "损失没有除以累积步数", "accumulation/loss-not-divided/"),
    # issue 29: a symptom of every sub-page, in the words a reader types, in both languages
    "en-loss-explodes": (
        "en",
        "loss explodes with gradient accumulation",
        "accumulation/loss-not-divided/",
    ),
    "zh-loss-grows": ("zh", "梯度累积后 loss 变大", "accumulation/loss-not-divided/"),
    "en-logged-loss-smaller": (
        "en",
        "logged loss smaller with gradient accumulation",
        "accumulation/logged-loss/",
    ),
    "zh-logged-loss-smaller": ("zh", "梯度累积后日志中的 loss 变小", "accumulation/logged-loss/"),
    "en-logged-loss-divided": (
        "en",
        "loss divided by accumulate_grad_batches in the progress bar",
        "accumulation/logged-loss/",
    ),
    "zh-logged-loss-divided": ("zh", "日志中的损失被除以了累积步数", "accumulation/logged-loss/"),
    "en-plus-equals-in-place": ("en", "is x += 1 an in-place operation", "inplace/what-counts/"),
    "zh-plus-equals-in-place": ("zh", "x += 1 是原位操作吗", "inplace/what-counts/"),
    "en-parameter-in-place": (
        "en",
        "error when I modify a parameter in place",
        "inplace/leaf-tensors/",
    ),
    "zh-parameter-in-place": ("zh", "原位修改模型参数时报错", "inplace/leaf-tensors/"),
    "en-saved-tensors": ("en", "which tensors does backward save", "inplace/saved-tensors/"),
    "zh-saved-tensors": ("zh", "反向传播保存了哪些张量", "inplace/saved-tensors/"),
    "en-write-through-view": (
        "en",
        "in-place write through a slice or reshape view",
        "inplace/views/",
    ),
    "zh-write-through-view": ("zh", "通过切片或 reshape 的视图原位写入", "inplace/views/"),
    "en-data-no-error": (
        "en",
        "wrong gradient but no error after writing .data",
        "inplace/bypassing-the-check/",
    ),
    "zh-data-no-error": ("zh", "用 .data 写入后梯度错误却不报错", "inplace/bypassing-the-check/"),
    "en-modify-inference-result": (
        "en",
        "can I modify a tensor made under inference_mode",
        "inplace/no-grad/",
    ),
    "zh-modify-inference-result": (
        "zh",
        "inference_mode 下得到的张量还能修改吗",
        "inplace/no-grad/",
    ),
    "en-to-static-ignores": (
        "en",
        "in-place operation ignored under to_static",
        "inplace/graph-capture/",
    ),
    "zh-to-static-ignores": ("zh", "动转静后原位操作不生效", "inplace/graph-capture/"),
    "en-custom-function-writes": (
        "en",
        "custom autograd Function writes into its input in place wrong gradient",
        "inplace/custom-functions/",
    ),
    "zh-custom-function-writes": (
        "zh",
        "自定义算子原位修改输入后梯度不对",
        "inplace/custom-functions/",
    ),
    "en-ema-teacher-gradient": (
        "en",
        "EMA teacher update changes the student gradient",
        "inplace/ema-update/",
    ),
    "zh-ema-teacher-gradient": ("zh", "EMA 教师模型更新后学生模型梯度不对", "inplace/ema-update/"),
    "en-detach-late": (
        "en",
        "detach_() hidden state does not cut the graph",
        "accumulation/second-backward/",
    ),
    "zh-detach-late": ("zh", "隐藏状态 detach_() 切不断计算图", "accumulation/second-backward/"),
    "zh-modify-inference-result-run-in": (
        "zh",
        "inference_mode下得到的张量还能修改吗",
        "inplace/no-grad/",
    ),
    "zh-grad-scaler-run-in": ("zh", "混合精度GradScaler梯度累积", "accumulation/mixed-precision/"),
    "en-save-memory": ("en", "does inplace=True save GPU memory", "inplace/memory/"),
    "zh-save-memory": ("zh", "原位操作能省显存吗", "inplace/memory/"),
    "en-paddle-detects": (
        "en",
        "Paddle detects dependencies since 2.6 so in-place is safe",
        "inplace/draft-claims/",
    ),
    "zh-paddle-detects": (
        "zh",
        "飞桨从 2.6 开始自动检测依赖 原位操作安全吗",
        "inplace/draft-claims/",
    ),
    "en-next-functions": (
        "en",
        "walk grad_fn.next_functions from the loss",
        "accumulation/graph/",
    ),
    "zh-next-functions": ("zh", "grad_fn 和 next_functions 是什么", "accumulation/graph/"),
    "en-backward-twice": (
        "en",
        "calling backward twice raises an error",
        "accumulation/second-backward/",
    ),
    "zh-backward-twice": ("zh", "第二次调用 backward 报错", "accumulation/second-backward/"),
    "en-forgot-zero-grad": (
        "en",
        "forgot zero_grad gradients keep adding up",
        "accumulation/gradients-add-up/",
    ),
    "zh-forgot-zero-grad": ("zh", "忘记清空梯度 梯度越来越大", "accumulation/gradients-add-up/"),
    "en-list-of-losses": (
        "en",
        "append the losses to a list and backward their sum",
        "accumulation/list-of-losses/",
    ),
    "zh-list-of-losses": ("zh", "把 loss 存进列表再反向传播", "accumulation/list-of-losses/"),
    "en-accumulation-memory": (
        "en",
        "how much memory does gradient accumulation use",
        "accumulation/memory/",
    ),
    "zh-accumulation-memory": ("zh", "梯度累积占多少显存", "accumulation/memory/"),
    "en-recipe": ("en", "how to implement gradient accumulation correctly", "accumulation/recipe/"),
    "zh-recipe": ("zh", "梯度累积 正确写法", "accumulation/recipe/"),
    "en-ddp-accumulation": (
        "en",
        "gradient accumulation in data parallel training",
        "accumulation/data-parallel/",
    ),
    "zh-ddp-accumulation": ("zh", "数据并行下的梯度累积", "accumulation/data-parallel/"),
    "en-grad-scaler": (
        "en",
        "GradScaler with gradient accumulation",
        "accumulation/mixed-precision/",
    ),
    "zh-grad-scaler": ("zh", "混合精度 GradScaler 梯度累积", "accumulation/mixed-precision/"),
    "en-fused-scaler": (
        "en",
        "grad still scaled after GradScaler skipped step fused Adam",
        "accumulation/mixed-precision/",
    ),
    "zh-fused-scaler": ("zh", "跳过更新之后 fused 梯度仍带着缩放", "accumulation/mixed-precision/"),
    "en-checkpointing": (
        "en",
        "activation checkpointing first block gets no gradient",
        "accumulation/recomputation/",
    ),
    "zh-checkpointing": ("zh", "前向重计算 第一个分段拿不到梯度", "accumulation/recomputation/"),
    "en-flatten-recompute": (
        "en",
        "recompute nn.Flatten in-place write wrong gradient no error",
        "accumulation/recomputation/",
    ),
    "zh-flatten-recompute": (
        "zh",
        "前向重计算 Flatten 原位写入 梯度错误",
        "accumulation/recomputation/",
    ),
    "en-gradient-merge": ("en", "Paddle gradient merge", "accumulation/built-in/"),
    "zh-gradient-merge-page": ("zh", "飞桨 Gradient Merge", "accumulation/built-in/"),
    "en-stack-overflow": (
        "en",
        "Stack Overflow answer on gradient accumulation checked",
        "accumulation/answer-checked/",
    ),
    "zh-stack-overflow": (
        "zh",
        "核对 Stack Overflow 上的梯度累积回答",
        "accumulation/answer-checked/",
    ),
}

# What a reader pastes or types -> the error-index entry (its id, the same in both languages).
# Queries quote the frameworks' messages as the pinned releases print them.
ENTRY_QUERIES = {
    "leaf-torch-message": (
        "a leaf Variable that requires grad is being used in an in-place operation.",
        "leaf-in-place",
    ),
    "leaf-paddle-message": (
        "that doesn't stop gradient can't use inplace strategy",
        "leaf-in-place",
    ),
    "mark-dirty-not-input-message": (
        "ctx.mark_dirty() received a tensor that was not an input",
        "mark-dirty-not-input",
    ),
    "leaf-view-torch-message": (
        "a view of a leaf Variable that requires grad is being used in an in-place operation.",
        "leaf-item-assignment",
    ),
    "saved-torch-message": (
        "one of the variables needed for gradient computation has been modified by an "
        "inplace operation",
        "modified-by-an-inplace-operation",
    ),
    "saved-paddle-message": (
        "used in gradient computation has been modified by an inplace operation. Its version "
        "is 1 but the expected version is 0",
        "modified-by-an-inplace-operation",
    ),
    "saved-anomaly-hint": (
        "Hint: enable anomaly detection to find the operation that failed to compute its "
        "gradient, with torch.autograd.set_detect_anomaly(True)",
        "modified-by-an-inplace-operation",
    ),
    "plus-equals": ("+=", "modified-by-an-inplace-operation"),
    "views-second-sentence": (
        "This view is the output of a function that returns multiple views.",
        "view-modified-in-place",
    ),
    "views-no-grad-message": (
        "A view was created in no_grad mode and is being modified inplace with grad mode enabled",
        "view-modified-in-place",
    ),
    "out-message": (
        "functions with out=... arguments don't support automatic differentiation, but one of "
        "the arguments requires grad.",
        "out-argument",
    ),
    "inference-message": (
        "Inplace update to inference tensor outside InferenceMode is not allowed",
        "inference-tensor",
    ),
    "to-static-warning": (
        "In static graph mode, add_() is the same as add() and does not perform inplace operation.",
        "to-static",
    ),
    "view-grad-message": (
        "The Tensor can not be viewed, please call reshape.",
        "tensor-can-not-be-viewed",
    ),
    "second-backward-torch-message": (
        "Trying to backward through the graph a second time",
        "second-backward",
    ),
    "second-backward-paddle-message": (
        "You calculate backward twice for the same subgraph without setting retain_graph=True.",
        "second-backward",
    ),
    # issue 21: the culprits' messages, the new entries
    "anomaly-mode-hint": (
        "The variable in question was changed in there or anywhere later. Good luck!",
        "modified-by-an-inplace-operation",
    ),
    "copy-slices-message": (
        "which is output 0 of torch::autograd::CopySlices",
        "modified-by-an-inplace-operation",
    ),
    "paddle-call-stack-message": (
        "PermissionDeniedError: Tensor '' used in gradient computation has been modified by an "
        "inplace operation",
        "modified-by-an-inplace-operation",
    ),
    "unbind-view-message": (
        "Output 0 of Unbind is a view and is being modified inplace",
        "view-modified-in-place",
    ),
    "backward-hook-message": (
        "Output 0 of BackwardHookFunction is a view and is being modified inplace",
        "backward-hook-view",
    ),
    "backward-hook-old-name": (
        "Output 0 of BackwardHookFunctionBackward is a view and is being modified inplace.",
        "backward-hook-view",
    ),
    "backward-hook-second-sentence": (
        "You can fix this by cloning the output of the custom Function.",
        "backward-hook-view",
    ),
    "backward-hook-paddle-message": (
        "'Linear' object has no attribute 'register_full_backward_hook'",
        "backward-hook-view",
    ),
    "sync-batch-norm-torch-message": (
        "SyncBatchNorm layers only work with GPU modules",
        "sync-batch-norm-cpu",
    ),
    "sync-batch-norm-paddle-message": (
        "The kernel sync_batch_norm is not registered",
        "sync-batch-norm-cpu",
    ),
    "two-backward-calls-paddle": (
        "The TensorWrappers of MeanGradNode do not exist",
        "second-backward",
    ),
    # pastes with lunr's query syntax in them: the whole message with the reader's own shape
    # and versions (words no page holds), as printed and in quotes (quotes made every word
    # required), below a Python 3.11 traceback's lines (a file name in quotes, the `~~~^^`
    # markers under the call: `~` and `^` want a number, else the query is invalid), after
    # the line of code that raised it
    "saved-torch-message-whole": (
        "one of the variables needed for gradient computation has been modified by an inplace "
        "operation: [torch.FloatTensor [3, 16, 5, 5]] is at version 3; expected version 2 "
        "instead",
        "modified-by-an-inplace-operation",
    ),
    "saved-torch-message-quoted": (
        '"one of the variables needed for gradient computation has been modified by an '
        "inplace operation: [torch.FloatTensor [3, 16, 5, 5]] is at version 3; expected "
        'version 2 instead"',
        "modified-by-an-inplace-operation",
    ),
    "saved-torch-phrase-quoted": (
        '"one of the variables needed"',
        "modified-by-an-inplace-operation",
    ),
    "saved-torch-traceback-carets": (
        'File "train.py", line 42, in <module> loss.backward() ~~~~~~~~~~~~~^^ RuntimeError: '
        "one of the variables needed for gradient computation has been modified by an "
        "inplace operation: [torch.cuda.FloatTensor [64, 5]], which is output 0 of "
        "ReluBackward0, is at version 1; expected version 0 instead.",
        "modified-by-an-inplace-operation",
    ),
    "saved-torch-message-after-code": (
        "x[~mask] = 0 RuntimeError: one of the variables needed for gradient computation has "
        "been modified by an inplace operation",
        "modified-by-an-inplace-operation",
    ),
}
ENTRY_QUERIES_IN = {  # words of one language's entries, searched on that language's site
    "zh": {
        "zh-leaf-words": ("叶子张量 原位操作", "leaf-in-place"),
        "zh-item-assignment-words": ("下标赋值", "leaf-item-assignment"),
        "zh-version-words": (
            "梯度计算需要的张量被原位操作修改",
            "modified-by-an-inplace-operation",
        ),
        "zh-inference-words": ("推理张量", "inference-tensor"),
        "zh-second-backward-words": ("第二次反向传播", "second-backward"),
        "zh-backward-hook-words": ("完整反向钩子 原位网络层", "backward-hook-view"),
        "zh-sync-batch-norm-words": ("在 CPU 上使用 SyncBatchNorm", "sync-batch-norm-cpu"),
        "zh-mark-dirty-words": ("把不是输入的张量标记为 dirty", "mark-dirty-not-input"),
        # Latin words run into Chinese ones without spaces, as Chinese readers type them
        "zh-inplace-run-in": ("使用inplace操作后报错", "modified-by-an-inplace-operation"),
        "zh-sync-batch-norm-run-in": ("在CPU上使用SyncBatchNorm", "sync-batch-norm-cpu"),
    },
    "en": {
        "en-leaf-words": ("leaf modified in place", "leaf-in-place"),
        "en-second-backward-words": ("backward twice retain_graph", "second-backward"),
        "en-backward-hook-words": ("full backward hook in-place layer", "backward-hook-view"),
        "en-sync-batch-norm-words": ("SyncBatchNorm on the CPU", "sync-batch-norm-cpu"),
        "en-mark-dirty-words": (
            "mark_dirty on a tensor that is not an input",
            "mark-dirty-not-input",
        ),
    },
}
# Operation names in the messages shown on the error index: each must find its own entry.
# PyTorch names the node whose output was overwritten or freed ("output 0 of ReluBackward0",
# "CopySlices"); Paddle its grad nodes and grad ops (PowGradNode, relu_grad).
OP_NAME = re.compile(
    r"\b(?:[A-Z]\w*Backward\d+|CopySlices|[A-Z]\w*GradNode|[a-z][a-z0-9]*(?:_[a-z0-9]+)*_grad)\b"
)
NOT_OPS = {"requires_grad", "no_grad", "enable_grad", "retain_grad", "zero_grad", "clear_grad"}


def entry_cases() -> list[tuple[str, str, str, str]]:
    cases = []
    for lang in LANGS:
        for name, (query, entry) in ENTRY_QUERIES.items():
            cases.append((f"{lang}-{name}", lang, query, entry))
        for name, (query, entry) in ENTRY_QUERIES_IN.get(lang, {}).items():
            cases.append((name, lang, query, entry))
    return cases


def op_name_cases() -> list[tuple[str, str, str, str]]:
    """(id, lang, op name, entry) for every operation name in a message of an entry."""
    cases = []
    for lang in LANGS:
        page = page_at(lang_prefix(lang) + ERRORS)
        if page is None:
            continue
        for entry, messages in entry_messages(page.file).items():
            names = {name for text in messages for name in OP_NAME.findall(text)} - NOT_OPS
            cases += [(f"{lang}-op-{name}", lang, name, entry) for name in sorted(names)]
    return cases


PRINTED = ("claim-message", "claim-output")  # what a run printed: messages, outputs (render.py)


def entry_messages(file) -> dict[str, list[str]]:
    """Entry id (its h2's id) -> the texts of the blocks a run printed in it: messages
    (``claim-message``) and outputs (``claim-output``, such as the culprits' messages that a
    behaviour claim prints whole)."""
    found: dict[str, list[str]] = {}
    current = None
    for node in content(parse(file)).children:
        if getattr(node, "tag", None) == "h2":
            current = node.attrs.get("id")
            found.setdefault(current, [])
        elif current is not None and hasattr(node, "iter"):
            found[current] += [
                code.text()
                for div in node.iter("div")
                if any(div.has_class(kind) for kind in PRINTED)
                for code in div.iter("code")
            ]
    return found


# -- typing a query ---------------------------------------------------------------------------

RESULTS_JS = """
() => [...document.querySelectorAll('.md-search-result__list a.md-search-result__link')]
  .map(a => ({href: a.href, score: parseFloat(a.querySelector('article').dataset.mdScore)}))
"""


def search(page, query: str) -> list[tuple[str, float]]:
    """Types ``query`` into the header's search box; (path#fragment, score) of every result
    shown, in Material's order (score, then the list's order)."""
    box = page.locator("input.md-search__input")
    if not box.is_visible():  # narrow screens: open the search overlay first
        page.locator("label.md-header__button[for='__search']").click()
    box.click()
    if box.input_value():  # the page's previous query: cleared, its results gone
        box.fill("")
        box.press("End")
        page.wait_for_function(
            "() => !document.querySelector('.md-search-result__list > li') && "
            "!/no matching|没有找到/i.test("
            "document.querySelector('.md-search-result__meta').textContent)"
        )
    box.fill(query)
    box.press("End")  # Material reads the query on keyup
    meta = page.locator(".md-search-result__meta")
    page.wait_for_function(
        """() => document.querySelector('.md-search-result__list > li') ||
                 /no matching|没有找到/i.test(
                   document.querySelector('.md-search-result__meta').textContent)"""
    )
    results, deadline = None, time.monotonic() + 5
    while time.monotonic() < deadline:  # the list fills in chunks: wait until it is stable
        now = page.evaluate(RESULTS_JS)
        if now == results:
            break
        results = now
        page.wait_for_timeout(250)
    assert meta.count() == 1
    shown = []
    for item in results:
        parts = urlsplit(item["href"])  # without ?h= (highlight)
        shown.append(
            (
                parts.path.lstrip("/") + (f"#{parts.fragment}" if parts.fragment else ""),
                item["score"],
            )
        )
    return sorted(shown, key=lambda r: -r[1])  # stable: ties keep the list's order


def rank_of(results: list[tuple[str, float]], wanted) -> int | None:
    for i, (location, _score) in enumerate(results, start=1):
        if wanted(location):
            return i
    return None


def other_language_results(results, lang: str) -> list[str]:
    prefix = lang_prefix(lang)
    others = [lang_prefix(other) for other in LANGS if other != lang and lang_prefix(other)]
    if prefix:
        return [loc for loc, _ in results if not loc.startswith(prefix)]
    return [loc for loc, _ in results if loc.startswith(tuple(others))]


@pytest.fixture(scope="module")
def search_page(browser, base_url):
    """``search_page(lang)``: the page of that language's home where its queries run, opened
    (and its search loaded) on first use; ``search_page.discard(lang)`` closes it, so that the
    next query gets a fresh one."""
    context = browser.new_context(viewport=VIEWPORT, service_workers="block")
    context.set_default_timeout(TIMEOUT_MS)
    opened = {}

    def get(lang: str):
        if lang not in opened:
            page = context.new_page()
            page.goto(base_url + lang_prefix(lang))
            opened[lang] = page
        opened[lang].bring_to_front()  # browserkit.BEHIND: the page used is the one in front
        return opened[lang]

    def discard(lang: str) -> None:
        page = opened.pop(lang, None)
        if page is not None:
            page.close()

    get.discard = discard
    try:
        yield get
    finally:
        context.close()


def run_query(search_page, lang: str, query: str):
    page = search_page(lang)
    answered = False
    try:
        results = search(page, query)
        answered = True
    finally:
        if not answered:  # the page may be in any state: the next query gets a fresh one
            search_page.discard(lang)
    wrong = other_language_results(results, lang)
    assert not wrong, f"{query!r} on /{lang_prefix(lang)} lists other languages' pages: {wrong[:5]}"
    return results


def record(name: str, lang: str, query: str, expected: str, rank: int | None, results) -> None:
    RANKS[name] = {
        "lang": lang,
        "query": query,
        "expected": expected,
        "rank": rank,
        "top": [f"{loc} ({score:.1f})" for loc, score in results[:5]],
    }
    ARTEFACTS.mkdir(parents=True, exist_ok=True)
    (ARTEFACTS / "search-ranks.json").write_text(
        json.dumps(RANKS, indent=2, ensure_ascii=False), encoding="utf-8"
    )


def describe(results) -> str:
    return "\n".join(f"  {i}. {loc} ({score:.1f})" for i, (loc, score) in enumerate(results[:8], 1))


# -- the tests --------------------------------------------------------------------------------


def by_language(cases) -> list:
    """Each case as a pytest.param in its language's group: under pytest-xdist (--dist
    loadgroup) one worker runs all the queries of a language, in that language's one page (the
    module fixture), and the two languages run on two workers side by side."""
    return [
        pytest.param(*case, marks=pytest.mark.xdist_group(f"search-{case[0]}")) for case in cases
    ]


@pytest.mark.parametrize(
    ("lang", "query", "article"), by_language(ARTICLE_CASES.values()), ids=ARTICLE_CASES.keys()
)
def test_search_finds_the_article(lang, query, article, site_dir, search_page):
    results = run_query(search_page, lang, query)
    expected = lang_prefix(lang) + article
    rank = rank_of(results, lambda loc: loc.startswith(expected))  # its overview or a sub-page
    pages = list(dict.fromkeys(loc.split("#")[0] for loc, _ in results))
    assert any(path.startswith(expected) for path in pages[:TOP]), (
        f"{query!r} on /{lang_prefix(lang)}: top pages {pages[:8]}"
    )
    record(f"article-{lang}-{query}", lang, query, expected, rank, results)


@pytest.mark.parametrize(
    ("lang", "query", "sub_page"), by_language(SUB_PAGE_CASES.values()), ids=SUB_PAGE_CASES.keys()
)
def test_search_finds_the_sub_page(lang, query, sub_page, site_dir, search_page):
    expected = lang_prefix(lang) + sub_page
    assert page_at(expected) is not None, f"no page /{expected}"
    results = run_query(search_page, lang, query)
    pages = list(dict.fromkeys(loc.split("#")[0] for loc, _ in results))
    rank = pages.index(expected) + 1 if expected in pages else None
    record(f"sub-page-{lang}-{query}", lang, query, expected, rank, results)
    assert rank is not None and rank <= TOP, (
        f"{query!r} on /{lang_prefix(lang)}: /{expected} is "
        f"{'not listed' if rank is None else f'page #{rank}'}; first results:\n{describe(results)}"
    )


ENTRY_CASES = entry_cases()
OP_CASES = op_name_cases()


@pytest.mark.parametrize(
    ("lang", "query", "entry"),
    by_language(c[1:] for c in ENTRY_CASES + OP_CASES),
    ids=[c[0] for c in ENTRY_CASES + OP_CASES],
)
def test_a_pasted_message_finds_its_entry(lang, query, entry, site_dir, search_page):
    expected = f"{lang_prefix(lang)}{ERRORS}#{entry}"
    page = page_at(lang_prefix(lang) + ERRORS)
    assert page is not None and entry in entry_messages(page.file), (
        f"no entry #{entry} on /{lang_prefix(lang)}{ERRORS}"
    )
    results = run_query(search_page, lang, query)
    rank = rank_of(results, lambda loc: loc == expected)
    record(f"{lang}-{query}", lang, query, expected, rank, results)
    assert rank is not None and rank <= TOP, (
        f"{query!r} on /{lang_prefix(lang)}: {expected} is "
        f"{'not listed' if rank is None else f'#{rank}'}; first results:\n{describe(results)}"
    )


@pytest.mark.parametrize(("lang", "query"), by_language([("en", "5"), ("zh", "5"), ("zh", "51")]))
def test_a_number_from_a_shape_gets_results(lang, query, search_page):
    """A shape's numbers are words of the index (its separator splits "[3, 16, 5, 5]"). With
    lunr's own TokenSet.toString, two nodes of the word tree whose edges read the same once
    run together ("1" to node 23 and "4" to node 5; "1" to node 2 and "3" to node 45) were
    merged: the Chinese index of 2026-12-07 then answered any term starting with 5 with a
    TypeError in the worker and no result at all (search-as-pasted.js replaces it)."""
    results = run_query(search_page, lang, query)
    assert results, f"{query!r} on /{lang_prefix(lang)}: no result"


def test_there_are_enough_entry_queries():
    per_lang = {lang: sum(1 for c in ENTRY_CASES + OP_CASES if c[1] == lang) for lang in LANGS}
    assert all(n >= 15 for n in per_lang.values()), per_lang


def test_every_sub_page_has_a_symptom_in_each_language():
    """Each sub-page of the articles is searched for, in each language, in a reader's words."""
    from verified.claims import ROOT

    missing = []
    for lang in LANGS:
        for page in sorted((ROOT / "docs" / lang).glob("*/*.md")):
            if page.name == "index.md" or page.parent.name not in ("inplace", "accumulation"):
                continue
            wanted = f"{page.parent.name}/{page.stem}/"
            if not any(c[0] == lang and c[2] == wanted for c in SUB_PAGE_CASES.values()):
                missing.append(f"{lang}: {wanted}")
    assert not missing, missing
