import pytest

from jurybox.datasets import BUNDLED_RUBRICS, bundled_path
from jurybox.errors import DataError
from jurybox.rubrics import load_rubric

DIM = """  - name: {name}
    scale: {{min: 1, max: 4}}
"""


def _rubric(tmp_path, body):
    path = tmp_path / "r.yaml"
    path.write_text("name: t\ndimensions:\n" + body)
    return path


def test_bundled_pbig_rubric_and_its_gating_order():
    r = load_rubric(bundled_path(BUNDLED_RUBRICS["pbig"]))
    assert r.names == ["specificity", "technical_validity", "innovativeness",
                       "competitive_advantage", "need_validity", "market_size"]
    assert r.dimension("market_size").exclusion.code == 0
    assert r.gate("technical_validity", {"specificity": 1}) == "specificity = 1 fails >= 2"
    assert r.gate("technical_validity", {"specificity": 2}) is None
    assert r.gate("innovativeness", {"specificity": 3, "technical_validity": None}) \
        == "technical_validity has no score"
    assert r.dimension("need_validity").valid_answer(0)
    assert not r.dimension("specificity").valid_answer(0)


def test_several_prerequisites_and_order_follows_dependencies(tmp_path):
    path = _rubric(tmp_path, """  - name: c
    scale: {min: 1, max: 4}
    requires: {a: ">= 2", b: "> 1"}
  - name: a
    scale: {min: 1, max: 4}
  - name: b
    scale: {min: 1, max: 4}
    requires: {a: ">= 3"}
""")
    r = load_rubric(path)
    assert r.names == ["a", "b", "c"]
    assert r.gate("c", {"a": 3, "b": 1}) == "b = 1 fails > 1"
    assert r.gate("c", {"a": 3, "b": 2}) is None


@pytest.mark.parametrize("body, message", [
    (DIM.format(name="a") + "    requires: {zzz: '>= 2'}\n",
     "dimension 'a' requires unknown dimension 'zzz'"),
    (DIM.format(name="a") + "    requires: {b: '>= 2'}\n" + DIM.format(name="b")
     + "    requires: {a: '>= 2'}\n", "gating cycle: a -> b -> a"),
    (DIM.format(name="a") + DIM.format(name="b") + "    requires: {a: '>= 7'}\n",
     "'b' requires 'a' >= 7, which can never pass on 'a''s scale 1-4"),
    (DIM.format(name="a") + DIM.format(name="b") + "    requires: {a: '> 4'}\n",
     "'b' requires 'a' > 4, which can never pass"),
    (DIM.format(name="a") + DIM.format(name="b") + "    requires: {a: '> 0'}\n",
     "'b' requires 'a' > 0, which always passes"),
    (DIM.format(name="a") + "    requires: {a: '>= 2'}\n", "dimension 'a' requires itself"),
    (DIM.format(name="a") + DIM.format(name="b") + "    requires: {a: 'at least 2'}\n",
     "gating rule 'at least 2' must look like '>= 2'"),
    (DIM.format(name="a") + DIM.format(name="a"), "duplicate dimension names"),
    ("  - name: a\n    scale: {min: 4, max: 1}\n", "scale min 4 must be below max 1"),
])
def test_rubric_validation_errors(tmp_path, body, message):
    with pytest.raises(DataError, match=message.replace("(", r"\(").replace(")", r"\)")):
        load_rubric(_rubric(tmp_path, body))


def test_bad_yaml_names_the_line(tmp_path):
    path = tmp_path / "r.yaml"
    path.write_text("name: t\ndimensions: [\n  {name: a\n")
    with pytest.raises(DataError, match=r"r\.yaml:\d+: invalid YAML"):
        load_rubric(path)


def test_non_utf8_rubric_names_the_file_and_line(tmp_path):
    path = tmp_path / "r.yaml"
    path.write_bytes("name: t\ndescription: caf\xe9\ndimensions: []\n".encode("latin-1"))
    with pytest.raises(DataError) as err:
        load_rubric(path)
    assert (err.value.path, err.value.line) == (str(path), 2)
    assert "not UTF-8 text" in err.value.message


@pytest.mark.parametrize("name", ["r.yaml", "r.json"])
def test_rubric_nested_100000_deep_is_a_data_error(tmp_path, name):
    path = tmp_path / name
    path.write_text('{"name": ' + "[" * 100_000 + "]" * 100_000 + "}\n")
    with pytest.raises(DataError, match="nested too deeply"):
        load_rubric(path)


def test_rubric_integer_past_the_conversion_limit_is_a_data_error(tmp_path):
    path = _rubric(tmp_path, "  - name: a\n    scale: {min: 1, max: " + "9" * 5000 + "}\n")
    with pytest.raises(DataError, match="invalid YAML value: Exceeds the limit"):
        load_rubric(path)


@pytest.mark.parametrize("text, fragment", [('"bad\\ud800"', "lone surrogate"),
                                             ('"bad\\0"', "NUL character")])
def test_rubric_text_that_cannot_be_sent_names_the_field(tmp_path, text, fragment):
    path = _rubric(tmp_path, f"  - name: a\n    description: {text}\n"
                             f"    scale: {{min: 1, max: 4}}\n")
    with pytest.raises(DataError) as err:
        load_rubric(path)
    assert err.value.field == "dimensions.0.description" and fragment in err.value.message


def test_gating_check_on_the_largest_scale_is_instant(tmp_path):
    # the check used to list every level of the prerequisite's scale; scales are now capped
    # at MAX_SCALE_LEVELS (1001) levels, and the check still looks only at the two ends
    path = _rubric(tmp_path, """  - name: a
    scale: {min: 0, max: 1000}
  - name: b
    scale: {min: 1, max: 4}
    requires: {a: ">= 2"}
  - name: c
    scale: {min: 1, max: 4}
    requires: {a: "== 1001"}
""")
    with pytest.raises(DataError, match=r"'c' requires 'a' == 1001, which can never "
                                        r"pass on 'a''s scale 0-1000"):
        load_rubric(path)


@pytest.mark.parametrize("rule, verdict", [
    ("< 1", "can never pass"), ("<= 4", "always passes"), ("< 5", "always passes"),
    ("== 5", "can never pass"), ("== 0", "can never pass"),
    ("<= 1", None), ("== 4", None), ("> 3", None), ("< 2", None)])
def test_gating_rules_that_never_or_always_pass_on_a_1_to_4_scale(tmp_path, rule, verdict):
    # a passes on some but not all of 1..4 exactly when the rule is useful
    path = _rubric(tmp_path, DIM.format(name="a") + DIM.format(name="b")
                   + f"    requires: {{a: '{rule}'}}\n")
    if verdict is None:
        assert load_rubric(path).names == ["a", "b"]
    else:
        with pytest.raises(DataError, match=f"requires 'a' {rule}, which {verdict}"):
            load_rubric(path)
