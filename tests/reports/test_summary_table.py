"""The report's summary table says what the terminal says: failed calls beside failed items."""

from jurybox.reports.sections import summary_table


def _summary(calls_failed, items_failed):
    return {"task": "pairwise", "baseline": "pairwise", "protocols": {
        "pairwise": {"accuracy": {"n": 200}, "calls_planned": 200, "calls_failed": {},
                     "items_failed": 0},
        "apoc": {"accuracy": {"n": 200}, "calls_planned": 800, "calls_failed": calls_failed,
                 "items_failed": items_failed}}}


def test_failed_calls_and_failed_items_are_two_columns():
    # the demo's apoc: one call unparseable after its re-ask, yet every item decided
    table = summary_table(_summary({"parse": 1, "api": 2, "refusal": 0}, 0), {})
    rows = {r[0]: dict(zip(table.columns, r)) for r in table.rows}
    assert (rows["apoc"]["failed calls"], rows["apoc"]["failed items"]) == ("3", "0")
    assert (rows["pairwise"]["failed calls"], rows["pairwise"]["failed items"]) == ("0", "0")
    assert "the terminal's \"failed\"" in table.caption


def test_a_damaged_calls_failed_field_is_a_dash():
    table = summary_table(_summary("three", 1), {})
    rows = {r[0]: dict(zip(table.columns, r)) for r in table.rows}
    assert rows["apoc"]["failed calls"] == "—" and rows["apoc"]["failed items"] == "1"
