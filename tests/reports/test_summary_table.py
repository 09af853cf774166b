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


def test_a_judge_run_with_one_labelled_item_says_item():
    summary = {"kind": "judge", "task": "listwise",
               "protocols": {"pcf": {"accuracy": {"accuracy": 1.0}, "calls_planned": 14}},
               "judge": {"protocol": "pcf", "n_items": 2, "n_failed": 0, "n_labelled": 1,
                         "flip_rate": 0.5, "mean_agreement": 0.917}}
    assert summary_table(summary, {}).caption.startswith(
        "Accuracy is over the 1 item that has gold only.")
    summary["judge"]["n_labelled"] = 2
    assert summary_table(summary, {}).caption.startswith(
        "Accuracy is over the 2 items that have gold only.")
