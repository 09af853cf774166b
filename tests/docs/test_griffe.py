"""The documentation's griffe extension (scripts/docs_griffe.py): the API reference's summary
tables show a docstring's first line, so the opening paragraph is joined into one line; a
doctest outside an examples section becomes a code block instead of nested quotes."""

from __future__ import annotations

import importlib.util

import pytest

from .pages import ROOT

griffe = pytest.importorskip("griffe")  # the [docs] extra, which `make docs` installs

SCRIPT = ROOT / "scripts" / "docs_griffe.py"
_spec = importlib.util.spec_from_file_location("docs_griffe", SCRIPT)
assert _spec is not None and _spec.loader is not None
docs_griffe = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(docs_griffe)


def first_line(text: str) -> str:
    """What mkdocstrings-python's summary tables show (``docstring.value.split("\\n", 1)[0]``)."""
    return text.split("\n", 1)[0]


def test_opening_paragraph_becomes_the_first_line():
    text = ("A judge run's summary.json: the bench summary of its one protocol (accuracy counts\n"
            "only labelled items) plus what judging needs.\n\nSecond paragraph\nkept as is.")
    joined = docs_griffe.one_line_summary(text)
    assert first_line(joined) == ("A judge run's summary.json: the bench summary of its one "
                                  "protocol (accuracy counts only labelled items) plus what "
                                  "judging needs.")
    assert joined.endswith("\n\nSecond paragraph\nkept as is.")


@pytest.mark.parametrize("rest", [
    "Args:\n    name: a bundled rubric's name",            # Google section
    "Parameters\n----------\nname : str",                  # numpy section
    ">>> load_rubric('pbig').name\n'pbig'",                # doctest
    "- one\n- two",                                       # list
    "```python\nx = 1\n```",                               # fence
])
def test_joining_stops_at_structure(rest):
    """Only the prose lines are joined; the structure after them is kept byte for byte."""
    text = "Load and validate a rubric YAML file, or a bundled\nrubric by name.\n" + rest
    assert docs_griffe.one_line_summary(text) == (
        "Load and validate a rubric YAML file, or a bundled rubric by name.\n" + rest)


def test_single_line_and_structured_openings_are_unchanged():
    for text in ("One line.\n\nMore\ntext.", "Summary.\nArgs:\n    x: y", "", "- a\n- b"):
        assert docs_griffe.one_line_summary(text) == text


def test_a_line_opening_with_a_comparison_stays_text():
    """Markdown would make '>= 0' a quote; joined, it reads as written."""
    text = "Weights finite\n>= 0 and not all 0."
    assert docs_griffe.one_line_summary(text) == "Weights finite >= 0 and not all 0."


def test_griffe_loads_whole_sentences_and_still_parses_sections(tmp_path):
    (tmp_path / "sample.py").write_text(
        'def f(x):\n'
        '    """Run (or resume) a judge run: judge every item, then write the\n'
        '    judgments (and :func:`report` when it is installed).\n\n'
        '    Args:\n'
        '        x: the items.\n'
        '    """\n\n\n'
        'def g():\n'
        '    """Two.\n\n    >>> g()\n    2\n    """\n')
    extensions = griffe.load_extensions(str(SCRIPT))
    module = griffe.load("sample", search_paths=[tmp_path], extensions=extensions)
    docstring = module["f"].docstring
    assert first_line(docstring.value) == ("Run (or resume) a judge run: judge every item, "
                                           "then write the judgments (and `report` when it is "
                                           "installed).")
    sections = docstring.parse("google")
    assert [s.kind.value for s in sections] == ["text", "parameters"]
    assert sections[1].value[0].name == "x"
    assert module["g"].docstring.value == "Two.\n\n```pycon\n>>> g()\n2\n```"


def test_doctests_at_the_margin_become_code_blocks():
    text = ("Closest choice.\n\n>>> did_you_mean('squalty', ['squality'])\n"
            "\"; did you mean 'squality'?\"\n\nArgs:\n    value: a name.\n"
            "        >>> indented(1)  # in a section: griffe's own")
    assert docs_griffe.fence_doctests(text) == (
        "Closest choice.\n\n```pycon\n>>> did_you_mean('squalty', ['squality'])\n"
        "\"; did you mean 'squality'?\"\n```\n\nArgs:\n    value: a name.\n"
        "        >>> indented(1)  # in a section: griffe's own")


def test_doctests_in_fences_and_numpy_sections_are_left_alone():
    fenced = "Text.\n\n```python\n>>> 1\n1\n```"
    assert docs_griffe.fence_doctests(fenced) == fenced
    numpy = "Text.\n\nExamples\n--------\n>>> 1\n1"
    assert docs_griffe.fence_doctests(numpy, numpy=True) == numpy
    # the same lines in a docstring griffe reads as Google style are plain text to it
    assert docs_griffe.fence_doctests(numpy) == (
        "Text.\n\nExamples\n--------\n\n```pycon\n>>> 1\n1\n```")


@pytest.fixture(scope="module")
def judging():
    """jurybox.judging as griffe reads it for the site, and as written (no extension)."""
    search = [ROOT / "src"]
    return (griffe.load("jurybox.judging", search_paths=search,
                        extensions=griffe.load_extensions(str(SCRIPT))),
            griffe.load("jurybox.judging", search_paths=search))


@pytest.mark.parametrize("name", ["JudgeSummary", "write_judgments", "ajudge", "prepare_judge",
                                  "run_judge"])
def test_reference_summaries_are_whole_opening_paragraphs(judging, name):
    """These five were cut mid-sentence in jurybox.judging's summary table: each docstring's
    first paragraph spans lines. The summary is now that paragraph, on one line."""
    site, source = judging
    opening = source[name].docstring.value.split("\n\n", 1)[0]
    assert "\n" in opening  # the case this fixes: an opening paragraph over several lines
    summary = first_line(site[name].docstring.value)
    assert summary == " ".join(docs_griffe.plain_roles(opening).split())
    assert summary.endswith(".")
