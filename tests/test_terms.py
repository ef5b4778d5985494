"""The glossary's 术语约定 (terminology decisions) hold on every Chinese text the site shows.

The table in ``docs/zh/glossary.md`` (section 术语约定) has a last column, 不用, listing the
wordings the Chinese pages never use. This test reads that column and fails on any of them in:
every zh page, every zh notebook (the committed copies, and the executed ones when built), the
Chinese text of every claim (statements, release notes, silent-failure rows), the Chinese words
of observed values and snippet comments, and the generator's and renderer's own Chinese
strings. A term marked （单独使用） is forbidden outside the words of its row's 中文 column
(节点 is fine inside 反向节点, 重计算 inside 前向重计算).
"""

from __future__ import annotations

import json
import re
import tomllib
from dataclasses import dataclass
from pathlib import Path

import pytest

from verified.claims import SNIPPETS, discover

ROOT = Path(__file__).resolve().parent.parent
DOCS_ZH = ROOT / "docs" / "zh"
GLOSSARY = DOCS_ZH / "glossary.md"
SECTION = "## 术语约定"
ALONE = "（单独使用）"
GENERATED = ("notebooks", "figures")


@dataclass(frozen=True)
class Rule:
    term: str  # the wording never used
    allowed: tuple[str, ...]  # words of the row that contain it and are fine ("alone" rules)
    preferred: str  # the row's 中文 column, for the message


def _cells(line: str) -> list[str]:
    return [c.strip() for c in line.strip().strip("|").split("|")]


def rules(glossary: str) -> list[Rule]:
    """The rules of the 术语约定 table: one per wording of its 不用 column."""
    if SECTION not in glossary:
        raise AssertionError(f"docs/zh/glossary.md has no section {SECTION!r}")
    section = glossary.split(SECTION, 1)[1].split("\n## ", 1)[0]
    rows = [line for line in section.split("\n") if line.startswith("|")]
    header = _cells(rows[0])
    if header[-1] != "不用":
        raise AssertionError(f"the 术语约定 table's last column is {header[-1]!r}, not '不用'")
    found = []
    for row in rows[2:]:
        cells = _cells(row)
        preferred, forbidden = cells[1], cells[-1]
        words = tuple(w for w in re.split(r"[、，,（）()]", preferred) if w.strip())
        for term in (t.strip() for t in forbidden.split("、") if t.strip()):
            alone = term.endswith(ALONE)
            term = term.removesuffix(ALONE).strip()
            allowed = tuple(w.strip() for w in words if term in w and w.strip() != term)
            found.append(Rule(term, allowed if alone else (), preferred))
    return found


def breaches(text: str, rule: Rule) -> list[int]:
    """Offsets where ``text`` uses the rule's term (outside its allowed words)."""
    masked = text
    for word in rule.allowed:
        masked = masked.replace(word, "\0" * len(word))
    return [m.start() for m in re.finditer(re.escape(rule.term), masked)]


# -- where Chinese text lives ---------------------------------------------------------------


def zh_pages() -> list[tuple[str, str]]:
    found = []
    for page in sorted(DOCS_ZH.rglob("*.md")):
        rel = page.relative_to(DOCS_ZH)
        if rel.parts[0] in GENERATED:
            continue
        text = page.read_text(encoding="utf-8")
        if page == GLOSSARY:  # the decisions themselves name the wordings they forbid
            head, _, rest = text.partition(SECTION)
            text = head + rest.split("\n## ", 1)[1] if "\n## " in rest else head
        found.append((f"docs/zh/{rel.as_posix()}", text))
    return found


def zh_notebooks() -> list[tuple[str, str]]:
    found = []
    for folder in (ROOT / "notebooks" / "zh", DOCS_ZH / "notebooks"):
        for path in sorted(folder.glob("*.ipynb")):
            cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
            for index, cell in enumerate(cells):
                source = (
                    "".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"]
                )
                found.append((f"{path.relative_to(ROOT).as_posix()} cell {index}", source))
    return found


def zh_claim_texts() -> list[tuple[str, str]]:
    found = []
    for claim in discover():
        found.append((f"{claim.id} statement.zh", claim.statement["zh"]))
        for fw, expect in (claim.raw.get("expect") or {}).items():
            for override in expect.get("versions", []) if isinstance(expect, dict) else []:
                note = (override.get("note") or {}).get("zh")
                if note:
                    found.append((f"{claim.id} expect.{fw}.versions note.zh", note))
        for i, row in enumerate(claim.silent):
            for key in ("symptom", "fix"):
                found.append((f"{claim.id} silent[{i}].{key}.zh", row[key]["zh"]))
    return found


def zh_tables() -> list[tuple[str, str]]:
    found = []
    for path in sorted(SNIPPETS.glob("*/*.zh.toml")):
        for english, chinese in tomllib.loads(path.read_text(encoding="utf-8")).items():
            found.append((f"{path.relative_to(ROOT).as_posix()}: {english[:40]!r}", chinese))
    return found


def engine_strings() -> list[tuple[str, str]]:
    from verified.notebooks.text import SETUP_COMMENTS
    from verified.notebooks.text import TEXT as NOTEBOOK_TEXT
    from verified.pages.words import TEXT as RENDER_TEXT

    def flat(value, where):
        if isinstance(value, dict):
            for key, item in value.items():
                yield from flat(item, f"{where}.{key}")
        elif isinstance(value, str):
            yield where, value

    return [
        *flat(RENDER_TEXT["zh"], "verified/pages/words.py TEXT['zh']"),
        *flat(NOTEBOOK_TEXT["zh"], "verified/notebooks/text.py TEXT['zh']"),
        *flat(SETUP_COMMENTS["zh"], "verified/notebooks/text.py SETUP_COMMENTS['zh']"),
    ]


SOURCES = {
    "pages": zh_pages,
    "notebooks": zh_notebooks,
    "claims": zh_claim_texts,
    "tables": zh_tables,
    "engine": engine_strings,
}


@pytest.mark.parametrize("source", SOURCES)
def test_chinese_text_follows_the_terminology_decisions(source):
    decided = rules(GLOSSARY.read_text(encoding="utf-8"))
    assert len(decided) >= 10, f"only {len(decided)} forbidden wordings in 术语约定"
    texts = SOURCES[source]()
    assert texts, f"no {source} to check"
    problems = []
    for where, text in texts:
        for rule in decided:
            for offset in breaches(text, rule):
                line = text.count("\n", 0, offset) + 1
                context = text[max(0, offset - 12) : offset + len(rule.term) + 12].replace(
                    "\n", " "
                )
                problems.append(
                    f"{where}, line {line}: {rule.term!r} (术语约定: {rule.preferred}) in …{context}…"
                )
    assert not problems, f"{len(problems)} wording(s) the glossary's 术语约定 rules out:\n" + (
        "\n".join(problems[:40])
    )


def test_the_rules_catch_what_they_forbid():
    glossary = (
        "# 术语表\n\n## 术语约定\n\n| 英文 | 中文 | 用法 | 不用 |\n|---|---|---|---|\n"
        "| leaf tensor | 叶子张量 | | 叶子节点 |\n"
        "| backward node | 反向节点 | | 节点（单独使用） |\n"
        "| recomputation | 前向重计算 | 又称激活检查点 | 重计算（单独使用） |\n"
        "| tensor | 张量（Tensor） | | |\n\n## 后面\n"
    )
    decided = rules(glossary)
    assert [r.term for r in decided] == ["叶子节点", "节点", "重计算"]
    assert decided[1].allowed == ("反向节点",) and decided[0].allowed == ()

    def hits(text):
        return sorted({r.term for r in decided if breaches(text, r)})

    assert hits("反向节点与前向重计算") == []
    assert hits("叶子节点") == ["叶子节点", "节点"]
    assert hits("这个节点") == ["节点"]
    assert hits("重计算的代价") == ["重计算"]
    assert hits("反向节点旁边的节点") == ["节点"]
    with pytest.raises(AssertionError, match="no section"):
        rules("# 术语表\n")
