"""--k above n! is said once per run (a break-test found `--k 7` with 3 candidates silently
judging 3! = 6 orders): one warning line on stderr, not one per item; with items of several
candidate counts, once with the counts; from Python, one OrdersCappedWarning."""

from __future__ import annotations

import json
import warnings

import pytest
from typer.testing import CliRunner

import jurybox
from jurybox.cli import app
from jurybox.protocols.permutations import OrdersCappedWarning, capped_orders

THREE = [{"id": f"q{i}", "prompt": "Which?", "candidates": ["a", "b", "c"]} for i in range(3)]
MIXED = [*THREE, {"id": "two", "prompt": "Which?", "candidates": ["a", "b"]},
         {"id": "four", "prompt": "Which?", "candidates": ["a", "b", "c", "d"]}]
ONE = "--k 7 asks for more orders than 3 candidates have (3! = 6): judging all 6"
SEVERAL = ("--k 7 asks for more orders than some items have: items with 2 candidates get 2 "
           "orders, with 3 get 6 (n! each; the others get 7)")


def test_the_message_and_when_there_is_one():
    assert capped_orders(7, [3, 3, 3]).text("--k 7") == ONE  # type: ignore[union-attr]
    assert capped_orders(7, [2, 3, 4]).text("--k 7") == SEVERAL  # type: ignore[union-attr]
    assert capped_orders(7, [2, 3]).text("k=7") == (  # type: ignore[union-attr]
        "k=7 asks for more orders than some items have: items with 2 candidates get 2 "
        "orders, with 3 get 6 (n! each)")
    # 3! = 6 orders: k = 6 is all of them, nothing to say; 4! = 24 >= 7; 26 candidates
    assert capped_orders(6, [3]) is None and capped_orders(7, [4, 26]) is None
    assert str(capped_orders(25, [4])) == ("k=25 asks for more orders than 4 candidates have "
                                           "(4! = 24): judging all 24")


def _judge_cli(tmp_path, items, *args):
    path = tmp_path / "items.jsonl"
    path.write_text("".join(json.dumps(item) + "\n" for item in items))
    return CliRunner().invoke(app, ["judge", str(path), "--model", "sim", "--no-cache",
                                    "--out", str(tmp_path / "run"), *args])


@pytest.mark.parametrize("items, message", [(THREE, ONE), (MIXED, SEVERAL)],
                         ids=["three", "mixed"])
def test_the_cli_says_it_once_per_run(tmp_path, items, message):
    result = _judge_cli(tmp_path, items, "--k", "7")
    assert result.exit_code == 0, result.output
    # the items have no gold: the simulated judge's noise warning is there too (its own test)
    said = [line for line in result.output.splitlines()
            if line.startswith("warning:") and "--k" in line]
    assert said == [f"warning: {message}"]
    calls = {r["item_id"]: r["n_calls"]
             for r in map(json.loads, (tmp_path / "run" / "items.jsonl").open())}
    # each item's n! orders when n! < 7, else 7
    assert calls == {**dict.fromkeys([i["id"] for i in THREE], 6),
                     **({"two": 2, "four": 7} if items is MIXED else {})}


def test_nothing_is_said_when_every_item_has_k_orders(tmp_path):
    result = _judge_cli(tmp_path, THREE, "--k", "6")
    assert result.exit_code == 0 and "asks for more orders" not in result.output, result.output


def test_python_gets_one_warning_per_run(tmp_path):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("default")
        result = jurybox.judge(MIXED, model="sim", k=7, out=tmp_path / "run")
    capped = [w for w in caught if issubclass(w.category, OrdersCappedWarning)]
    assert [str(w.message) for w in capped] == [SEVERAL.replace("--k 7", "k=7")]
    assert capped[0].filename == __file__  # the caller's line, not jurybox's
    assert [j.n_calls for j in result.items] == [6, 6, 6, 2, 7]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("default")
        jurybox.judge(THREE, model="sim", k=6, out=tmp_path / "six")
    assert not [w for w in caught if issubclass(w.category, OrdersCappedWarning)]
