"""Articles as sections, in a real browser: each overview's answer block fits the first screen
(1280 x 800) with its link to the error index, and links to the headings of the old
single-page articles land on the part of the section that has them now."""

from __future__ import annotations

from urllib.parse import quote, unquote

import pytest
from sitemodel import LANGS, article_keys, lang_prefix

# One worker runs this module's tests (pytest-xdist, --dist loadgroup): its module fixture
# is started once.
pytestmark = [pytest.mark.e2e, pytest.mark.xdist_group("first-screen")]

FIRST_SCREEN = {"width": 1280, "height": 800}
SCREENS: dict[str, dict] = {}  # measured, printed with the page weights' artefacts


def overviews() -> list[str]:
    keys = article_keys()
    return [k for k in keys if any(o != k and o.startswith(k) for o in keys)] or ["none/"]


@pytest.fixture(scope="module")
def first_screen_page(browser, base_url):
    """One page at the first screen's size, navigated by each test."""
    context = browser.new_context(viewport=FIRST_SCREEN, service_workers="block")
    context.set_default_timeout(15_000)
    try:
        yield context.new_page()
    finally:
        context.close()


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("key", overviews())
def test_the_answer_is_on_the_first_screen(key, lang, base_url, first_screen_page, artefacts):
    page = first_screen_page
    page.goto(base_url + lang_prefix(lang) + key)
    page.wait_for_load_state("networkidle")
    page.evaluate("document.fonts.ready")
    block = page.locator("article .admonition.answer")
    assert block.count() == 1, f"/{lang_prefix(lang)}{key}: {block.count()} answer blocks"
    box = block.bounding_box()
    scroll = page.evaluate("window.scrollY")
    errors = block.locator("a[href*='errors/']").first
    assert errors.count() == 1, (
        f"/{lang_prefix(lang)}{key}: the answer does not link the error index"
    )
    link = errors.bounding_box()
    SCREENS[f"{lang}-{key.strip('/')}"] = {"top": box["y"], "bottom": box["y"] + box["height"]}
    shots = artefacts / "screenshots"
    shots.mkdir(exist_ok=True)
    page.screenshot(path=shots / f"first-screen-{lang}-{key.strip('/')}.png")
    assert scroll == 0
    assert box["y"] >= 0 and box["y"] + box["height"] <= FIRST_SCREEN["height"], (
        f"/{lang_prefix(lang)}{key}: the answer block spans {box['y']:.0f}-"
        f"{box['y'] + box['height']:.0f} px, the first screen ends at {FIRST_SCREEN['height']} px"
    )
    assert link["y"] + link["height"] <= FIRST_SCREEN["height"]


# (old link, where it must land): the old pages' ids in both languages, one that is still on
# the overview, and a sub-page's own anchor
OLD_LINKS = [
    ("inplace/#rule-1-leaf-tensors-that-require-gradients", "inplace/leaf-tensors/", ""),
    (
        "inplace/#what-the-error-leaves-behind",
        "inplace/leaf-tensors/",
        "catching-the-error-has-the-write-happened",
    ),
    (
        "inplace/#is-this-in-place-operation-safe-here",
        "inplace/",
        "is-this-in-place-operation-safe-here",
    ),
    ("zh/inplace/#规则一需要梯度的叶子张量", "zh/inplace/leaf-tensors/", ""),
    ("zh/inplace/#绕过检查的途径", "zh/inplace/bypassing-the-check/", ""),
    (
        "accumulation/#scaling-the-loss",
        "accumulation/recipe/",
        "normalising-the-loss-mean--accumulation_steps-or-sum--items",
    ),  # fmt: skip
    (
        "zh/accumulation/#损失缩放",
        "zh/accumulation/recipe/",
        "损失的归一化mean--accumulation_steps-还是-sum--总项数",
    ),  # fmt: skip
]


@pytest.mark.parametrize(("old", "path", "fragment"), OLD_LINKS, ids=[o for o, _, _ in OLD_LINKS])
def test_old_anchor_lands_on_its_section(old, path, fragment, base_url, cold_page):
    page, traffic = cold_page()
    address, _, old_id = old.partition("#")
    page.goto(base_url + address + "#" + quote(old_id))
    expected = base_url + path + (f"#{fragment}" if fragment else "")
    page.wait_for_function(
        "expected => decodeURIComponent(location.href) === expected", arg=expected
    )
    assert unquote(page.url) == expected
    if fragment:
        heading = page.locator(f"[id='{fragment}']")
        assert heading.count() == 1 and heading.is_visible()
    problems = traffic.problems()
    # leaving the overview cancels what it was still loading: that is the redirect, not a fault
    problems["failed requests"] = [f for f in problems["failed requests"] if "ERR_ABORTED" not in f]
    problems = {k: v for k, v in problems.items() if v}
    assert not problems, problems


def test_a_changed_hash_on_the_overview_is_followed_too(base_url, cold_page):
    page, _ = cold_page()
    page.goto(base_url + "inplace/")
    page.evaluate("location.hash = 'ways-around-the-check'")
    page.wait_for_url("**/inplace/bypassing-the-check/")
