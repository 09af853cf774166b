"""In-memory items whose values refer to themselves or nest without end: one data error
naming the item and the field, before any model call (it was a RecursionError)."""

import pytest

import jurybox
from jurybox.errors import DataError
from jurybox.judging.items import MAX_ITEM_DEPTH, input_rows


def _item(**extra):
    return {"id": "q1", "prompt": "p", "candidates": ["a", "b"], **extra}


def test_an_item_that_contains_itself_is_named_with_its_field():
    item = _item()
    item["meta"] = item
    with pytest.raises(DataError) as caught:
        jurybox.judge([item], model="sim", k=2)
    assert str(caught.value) == (
        "items[0] (id 'q1'): field 'meta.meta': refers to a list or dict that contains it (a "
        "circular reference), which JSON cannot hold")


def test_a_list_holding_itself_and_a_shared_value_that_is_no_cycle():
    loop: list = []
    loop.append(loop)
    with pytest.raises(DataError, match=r"^items\[1\] \(id 'x'\): field 'extra\[0\]': refers"):
        input_rows([_item(), {**_item(extra=loop), "id": "x"}])
    shared = {"a": 1}  # the same dict twice is no cycle: JSON writes it twice
    assert input_rows([_item(extra=[shared, shared])])[0]["extra"] == [{"a": 1}, {"a": 1}]


def test_nesting_deeper_than_the_limit_is_refused_and_the_limit_itself_is_taken():
    def nested(depth):
        value: list = []
        for _ in range(depth - 1):
            value = [value]
        return value

    # the row is one level, so extra may nest MAX_ITEM_DEPTH - 1 levels
    assert input_rows([_item(extra=nested(MAX_ITEM_DEPTH - 1))])
    with pytest.raises(DataError, match=f"is nested deeper than {MAX_ITEM_DEPTH} levels"):
        input_rows([_item(extra=nested(10_000))])
