"""The report's length-bias panel, from summary.json as written."""

from jurybox.reports.length_bias import length_bias_section


def _bias(**over):
    return {"observed": 0.6, "expected": 0.25, "gold": 0.5, "n": 40, "n_gold": 38,
            "n_failed": 2, "n_tied": 0, "n_equal_length": 1, "n_unmeasured": 0,
            "confidence_interval": [0.4458, 0.7367], "confidence_level": 0.95,
            "p_value": 2.1e-06, "test": "exact", "reason": None, **over}


def test_the_panel_shows_each_protocol_with_its_baselines_and_what_was_left_out():
    summary = {"task": "listwise", "protocols": {
        "direct": {"accuracy": {}},  # written before length bias existed: no row
        "pcf": {"length_bias": _bias()},
    }}
    chart = length_bias_section(summary, {"pcf": {"adaptive": "exact"}})
    assert chart is not None and chart.title == ("length bias: how often the pick is the "
                                                 "longest candidate")
    (table,) = chart.tables
    assert table.columns == ["protocol", "n", "longest % [95% CI]", "unbiased %", "gold %", "p",
                             "left out"]
    assert table.rows == [["pcf (exact)", "40", "60.0 [44.6, 73.7]", "25.0", "50.0", "2.1e-06",
                           "2 failed, 1 equal length"]]
    assert "arXiv 2404.04475" in chart.caption
    # the plot: one row, the dot at 60% of the 0-100% axis (x from 150 to 540)
    assert 'cx="384.0"' in chart.svg and "unbiased: 25.0%" in chart.svg


def test_pairwise_wording_and_an_undefined_rate():
    summary = {"task": "pairwise", "protocols": {"apoc": {"length_bias": _bias(
        observed=None, expected=None, gold=None, n=0, n_gold=0, n_failed=0, n_equal_length=0,
        n_tied=3, confidence_interval=[None, None], p_value=None,
        reason="no decided item with candidates of different lengths")}}}
    chart = length_bias_section(summary, {})
    assert chart is not None and "the longer response wins" in chart.title
    assert chart.tables[0].columns[2] == "longer % [95% CI]"
    assert chart.tables[0].rows == [["apoc", "0", "—", "—", "—", "—", "3 tie verdicts"]]
    assert "undefined" in chart.svg


def test_names_are_escaped_and_runs_without_the_figure_get_no_panel():
    chart = length_bias_section({"task": "listwise", "protocols": {
        "<img src=x onerror=alert(1)>": {"length_bias": _bias()}}}, {})
    assert chart is not None and "<img" not in chart.svg and "&lt;img" in chart.svg
    assert length_bias_section({"task": "listwise", "protocols": {"pcf": {}}}, {}) is None
    assert length_bias_section({"groups": []}, {}) is None
