"""The README is a front page (short), and every relative link of it and of the docs pages
resolves: another page, a heading anchor, an image."""

from __future__ import annotations

import pytest

from .pages import DOCS, README, anchors, broken_links

PAGES = [README, *sorted(DOCS.rglob("*.md"))]


def test_readme_is_under_200_lines():
    lines = README.read_text(encoding="utf-8").splitlines()
    assert len(lines) < 200, f"README.md has {len(lines)} lines"


@pytest.mark.parametrize("page", PAGES, ids=[str(p.relative_to(README.parent)) for p in PAGES])
def test_relative_links_resolve(page):
    assert broken_links(page) == []


def test_pages_link_to_each_other():
    """The check looks at real links: the README links into docs/, the docs pages link on."""
    from .pages import LINK

    readme_links = LINK.findall(README.read_text(encoding="utf-8"))
    assert sum(t.startswith("docs/") for t in readme_links) >= 10
    assert "krippendorffs-alpha" in anchors(DOCS / "concepts.md")


def test_broken_links_are_found(tmp_path):
    """A missing page, a missing anchor and a missing image are each reported; a link in code
    and a web address are not checked."""
    (tmp_path / "other.md").write_text("# Other\n\n## Real heading\n")
    page = tmp_path / "page.md"
    page.write_text(
        "# Page\n\n## Here: `x`\n\n"
        "[ok](other.md#real-heading) [self](#here-x) [web](https://example.org/nope)\n"
        "[gone](missing.md) [bad anchor](other.md#nope) ![img](nope.png)\n"
        "`[not a link](missing.md)`\n\n```\n[nor this](missing.md)\n```\n")
    found = {(b.target, b.reason) for b in broken_links(page)}
    assert found == {("missing.md", "no such file"), ("nope.png", "no such file"),
                     ("other.md#nope", "no heading #nope in other.md")}


def test_repeated_headings_get_numbered_anchors(tmp_path):
    page = tmp_path / "p.md"
    page.write_text("# T\n\n## Measured\n\n## Measured\n\n```\n## not a heading\n```\n")
    assert anchors(page) == {"t", "measured", "measured_1"}
