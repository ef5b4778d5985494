"""Snippet comments in the reader's language: the same code, its comments translated.

The snippet files are written in English and are what the claims execute. A page or notebook in
another language shows the same file with its *prose* translated and every other token left
as it is. Prose is

- every comment (``# …``), except tool pragmas (``# noqa``, ``# type:``, ``# fmt:``,
  ``# pragma``, ``# ruff:``) and ``pymdownx.snippets`` section marks (``# --8<-- [start:x]``);
- every docstring (a string literal that is the first statement of a module, class or
  function): in these tutorial scripts docstrings explain the code, they are never data. A
  docstring or comment that must stay as it is maps to itself.

The translations sit beside the snippets, one table per article and language:
``snippets/<article>/comments.<lang>.toml``, mapping the English text (without ``# `` or the
quotes) to the translation; the paddle and torch files of an article share one table. A
translation keeps the number of lines of its original, so line numbers (tracebacks, ``file:3:8``
includes) are the same in every language.

:func:`translate` refuses (:class:`TranslationError`) a comment without a translation, naming
the snippet file and line and the exact line to add to the table, and refuses a result whose
code differs from the original in anything but comments and docstrings (:func:`code_tokens`).
The pages (:func:`verified.notebooks.snippets.translate_page`, the MkDocs hook's call) and the
notebooks (:func:`verified.notebooks.snippets.snippet_text`) both go through
:func:`translated_file`; this module imports nothing else of the notebook builder.
"""

from __future__ import annotations

import ast
import io
import json
import re
import tokenize
from dataclasses import dataclass
from pathlib import Path

from verified.claims import LANGS, ROOT, SNIPPETS

SOURCE_LANG = LANGS[0]  # the language the snippets are written in
LANGUAGE_NAMES = {"zh": "Chinese"}
TABLE_NAME = "comments.{lang}.toml"
PRAGMA_RE = re.compile(r"^#\s*(?:noqa\b|type:|fmt:|pragma\b|ruff:|pylint:|-{1,2}8<-{1,2})")


class TranslationError(ValueError):
    """A snippet's prose cannot be shown in a language: missing or malformed translations."""


@dataclass(frozen=True)
class Prose:
    """One comment or docstring of a snippet."""

    kind: str  # "comment" or "docstring"
    text: str  # the comment without "#" and surrounding blanks, or the docstring's body
    line: int  # 1-based line where it starts
    start: tuple[int, int]  # (line, column) of the token
    end: tuple[int, int]
    token: str  # the token's source text


# -- finding the prose ------------------------------------------------------------------------


def _docstring_starts(source: str) -> set[tuple[int, int]]:
    starts = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            body = node.body
            if (
                body
                and isinstance(body[0], ast.Expr)
                and isinstance(body[0].value, ast.Constant)
                and isinstance(body[0].value.value, str)
            ):
                starts.add((body[0].lineno, body[0].col_offset))
    return starts


_STRING_RE = re.compile(
    r"^(?P<prefix>[rRuU]?)(?P<quote>'''|\"\"\"|'|\")(?P<body>.*)(?P=quote)$", re.S
)


def prose(source: str) -> list[Prose]:
    """The comments and docstrings of ``source``, in order."""
    docstrings = _docstring_starts(source)
    found = []
    for tok in tokenize.generate_tokens(io.StringIO(source).readline):
        if tok.type == tokenize.COMMENT:
            if PRAGMA_RE.match(tok.string) or (tok.start[0] == 1 and tok.string.startswith("#!")):
                continue
            text = tok.string[1:].strip()
            if text:
                found.append(Prose("comment", text, tok.start[0], tok.start, tok.end, tok.string))
        elif tok.type == tokenize.STRING and tok.start in docstrings:
            match = _STRING_RE.match(tok.string)
            if match:  # (an implicitly concatenated docstring is left alone)
                found.append(
                    Prose("docstring", match["body"], tok.start[0], tok.start, tok.end, tok.string)
                )
    return found


def code_tokens(source: str) -> list[tuple[int, str]]:
    """``source`` as Python tokens without comments and docstrings: two sources with the same
    code tokens run the same code, whatever their comments say."""
    docstrings = _docstring_starts(source)
    tokens = []
    for tok in tokenize.generate_tokens(io.StringIO(source).readline):
        if tok.type in (tokenize.COMMENT, tokenize.NL):
            continue
        if tok.type == tokenize.STRING and tok.start in docstrings:
            tokens.append((tok.type, "<docstring>"))
            continue
        tokens.append((tok.type, tok.string))
    return tokens


# -- the tables -------------------------------------------------------------------------------


def table_path(article_dir: Path, lang: str) -> Path:
    return article_dir / TABLE_NAME.format(lang=lang)


def load_table(article_dir: Path, lang: str) -> dict[str, str]:
    """English text -> translation, from ``<article>/comments.<lang>.toml`` ({} if absent)."""
    import tomllib

    path = table_path(article_dir, lang)
    if not path.is_file():
        return {}
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as exc:
        raise TranslationError(f"{_shown(path)}: not valid TOML: {exc}") from None
    wrong = [k for k, v in data.items() if not isinstance(v, str)]
    if wrong:
        raise TranslationError(
            f'{_shown(path)}: every entry must be `"English" = "translation"`; '
            f"not a string: {wrong[:3]}"
        )
    return data


def toml_line(text: str, translation: str = "") -> str:
    """A table line: JSON strings are valid TOML basic strings."""
    return f"{json.dumps(text, ensure_ascii=False)} = {json.dumps(translation, ensure_ascii=False)}"


def _shown(path: Path) -> str:
    try:
        return path.resolve().relative_to(ROOT).as_posix()
    except ValueError:
        return path.as_posix()


# -- translating ------------------------------------------------------------------------------


def translate(source: str, lang: str, table: dict[str, str], *, where: str, table_at: str) -> str:
    """``source`` with every comment and docstring translated by ``table``.

    ``where`` names the snippet file in messages, ``table_at`` the table to add to."""
    if lang == SOURCE_LANG:
        return source
    items = prose(source)
    missing = [p for p in items if not table.get(p.text, "").strip()]
    if missing:
        name = LANGUAGE_NAMES.get(lang, lang)
        lines = "\n".join(
            f"  {where}:{p.line}: {p.kind} without a {name} translation: {p.text!r}"
            for p in missing
        )
        add = "\n".join(dict.fromkeys(f"    {toml_line(p.text)}" for p in missing))
        raise TranslationError(
            f"{len(missing)} snippet comment(s) or docstring(s) without a {name} ({lang}) "
            f"translation:\n{lines}\n"
            f"Add to {table_at} (create it if needed), with the {name} text between the "
            f"right-hand quotes:\n{add}"
        )
    lines = source.split("\n")
    for item in reversed(items):  # from the end: earlier positions stay valid
        translation = table[item.text]
        if item.kind == "comment":
            new = "# " + translation.strip()
        else:
            match = _STRING_RE.match(item.token)
            new = f"{match['prefix']}{match['quote']}{translation}{match['quote']}"
        if new.count("\n") != item.token.count("\n"):
            raise TranslationError(
                f"{where}:{item.line}: the {lang} translation of {item.text!r} has "
                f"{new.count(chr(10)) + 1} lines, the original {item.token.count(chr(10)) + 1}: "
                f"keep the number of lines (fix it in {table_at})"
            )
        (l1, c1), (l2, c2) = item.start, item.end
        head, tail = lines[l1 - 1][:c1], lines[l2 - 1][c2:]
        lines[l1 - 1 : l2] = (head + new + tail).split("\n")
    result = "\n".join(lines)
    try:
        same = code_tokens(result) == code_tokens(source)
    except (tokenize.TokenError, SyntaxError, IndentationError) as exc:
        raise TranslationError(
            f"{where}: the {lang} translation breaks the code ({exc}); check {table_at}"
        ) from None
    if not same:
        raise TranslationError(
            f"{where}: the {lang} translation changes the code, not only comments and "
            f"docstrings (a quote or a newline in a translation?); check {table_at}"
        )
    return result


_TRANSLATED: dict[tuple[str, str, str, str], str] = {}


def translated_file(name: str, lang: str, snippets: Path = SNIPPETS) -> str:
    """The text of ``snippets/<name>`` (``<article>/<file>.py``) as shown in ``lang``.
    Remembered by the texts of the file and its table: a page includes a file once per tab,
    and every page build and test asks again."""
    path = snippets / name
    source = path.read_text(encoding="utf-8")
    if lang == SOURCE_LANG:
        return source
    at = table_path(path.parent, lang)
    key = (name, lang, source, at.read_text(encoding="utf-8") if at.is_file() else "")
    if key not in _TRANSLATED:
        _TRANSLATED[key] = translate(
            source,
            lang,
            load_table(path.parent, lang),
            where=f"snippets/{name}",
            table_at=f"snippets/{Path(name).parent.as_posix()}/{TABLE_NAME.format(lang=lang)}",
        )
    return _TRANSLATED[key]


# -- checking every table ---------------------------------------------------------------------


def snippet_files(snippets: Path = SNIPPETS) -> list[Path]:
    return sorted(p for p in snippets.glob("*/*.py") if p.name != "figures.py")


def table_problems(snippets: Path = SNIPPETS) -> list[str]:
    """For every language but the snippets' own: comments without a translation, translations
    that would change the code, and table entries that no snippet uses any more."""
    problems = []
    files = snippet_files(snippets)
    for lang in LANGS:
        if lang == SOURCE_LANG:
            continue
        used: dict[Path, set[str]] = {}
        for path in files:
            name = path.relative_to(snippets).as_posix()
            used.setdefault(path.parent, set()).update(
                p.text for p in prose(path.read_text(encoding="utf-8"))
            )
            try:
                translated_file(name, lang, snippets)
            except TranslationError as exc:
                problems.append(str(exc))
        for folder in sorted({p.parent for p in files}):
            try:
                table = load_table(folder, lang)
            except TranslationError as exc:
                problems.append(str(exc))
                continue
            for text in table:
                if text not in used.get(folder, set()):
                    problems.append(
                        f"{_shown(table_path(folder, lang))}: {text!r} is in no snippet of "
                        f"{_shown(folder)}/ any more: remove the entry (or correct its English "
                        "text to match the snippet)"
                    )
    return problems
