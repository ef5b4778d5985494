"""A link to another page names that page (issue 29): its text is its title, the title the
navigation gives it, or a part of either (brackets, bold and code marks aside), in the page's
own language. A link that names a page by another title ("读懂版本报错" for 找出元凶) sends the
reader looking for a page that does not exist."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from sitemodel import mkdocs_config

ROOT = Path(__file__).resolve().parent.parent
LINK = re.compile(r"(?<!!)\[([^\]]+)\]\(([^)#\s]+\.md)\)")  # a page, no section anchor
FENCE = re.compile(r"^(```|~~~).*?^\1", re.M | re.S)
BRACKETS = re.compile(r"（[^（）]*）|\([^()]*\)")


def nav_titles(config: dict, lang: str) -> dict[str, str]:
    """page path -> its title in the navigation, in ``lang`` (the i18n plugin's translation)."""
    titles: dict[str, str] = {}

    def walk(items):
        for item in items or []:
            for title, value in item.items() if isinstance(item, dict) else []:
                if isinstance(value, str):
                    titles[value] = title
                else:
                    walk(value)

    walk(config.get("nav"))
    if lang == "en":
        return titles
    for plugin in config.get("plugins", []):
        if isinstance(plugin, dict) and "i18n" in plugin:
            for language in plugin["i18n"]["languages"]:
                if language.get("locale") == lang:
                    names = language.get("nav_translations") or {}
                    return {page: names.get(title, title) for page, title in titles.items()}
    return titles


def normal(text: str) -> str:
    return " ".join(text.replace("`", "").replace("*", "").casefold().split())


def names_of(title: str) -> set[str]:
    """A title, and the same title without its bracketed parts."""
    return {normal(title), normal(BRACKETS.sub("", title))}


def heading(page: Path) -> str:
    for line in page.read_text(encoding="utf-8").splitlines():
        if line.startswith("# "):
            return re.sub(r"\s*\{[^}]*\}\s*$", "", line[2:])
    return ""


def misnamed_links(docs: Path, nav: dict[str, str]) -> list[str]:
    """``page: [text](target)`` for each link whose text is not part of a title of its target."""
    found = []
    for page in sorted(docs.rglob("*.md")):
        text = FENCE.sub("", page.read_text(encoding="utf-8"))
        for label, target in LINK.findall(text):
            path = (page.parent / target).resolve()
            if not path.is_file() or docs.resolve() not in path.parents:
                continue  # a missing page is the strict build's to refuse
            key = path.relative_to(docs.resolve()).as_posix()
            titles = names_of(heading(path)) | names_of(nav.get(key, ""))
            if not any(normal(label) in t for t in titles if t):
                found.append(f"{page.relative_to(docs)}: [{label}]({target})")
    return found


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_link_to_a_page_names_it_by_its_title(lang):
    found = misnamed_links(ROOT / "docs" / lang, nav_titles(mkdocs_config(), lang))
    assert not found, "link texts that are not the target's title:\n" + "\n".join(found)


def test_a_link_by_another_title_is_found(tmp_path):
    docs = tmp_path / "zh"
    (docs / "inplace").mkdir(parents=True)
    (docs / "inplace" / "finding-the-culprit.md").write_text("# 找出元凶\n", encoding="utf-8")
    page = docs / "errors.md"
    nav = {"inplace/finding-the-culprit.md": "找出元凶（版本号）"}
    for good in ("[找出元凶](inplace/finding-the-culprit.md)", "[**元凶**](inplace/finding-the-culprit.md)",
                 "```\n[读懂版本报错](inplace/finding-the-culprit.md)\n```\n"):  # fmt: skip
        page.write_text(f"# 报错\n\n{good}\n", encoding="utf-8")
        assert misnamed_links(docs, nav) == []
    page.write_text("# 报错\n\n见[读懂版本报错](inplace/finding-the-culprit.md)。\n", "utf-8")
    assert misnamed_links(docs, nav) == [
        "errors.md: [读懂版本报错](inplace/finding-the-culprit.md)"
    ]
