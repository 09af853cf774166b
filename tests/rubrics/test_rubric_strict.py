"""A rubric file is read strictly: integers are integers, a key is given once, names are not
blank, exclusion codes cannot hide genuine scores, and scales have at most 1001 levels."""

import json

import pytest

from jurybox.errors import DataError
from jurybox.rubrics import MAX_SCALE_LEVELS, load_rubric


def _yaml(tmp_path, text):
    path = tmp_path / "r.yaml"
    path.write_text(text)
    return path


def _fails(path, line, field, fragment):
    with pytest.raises(DataError) as err:
        load_rubric(path)
    assert (err.value.path, err.value.line, err.value.field) == (str(path), line, field)
    assert fragment in err.value.message, err.value.message


@pytest.mark.parametrize("value, shown", [("false", "False"), ("true", "True"),
                                          ('"1"', "'1'"), ("1.0", "1.0")])
def test_scale_min_must_be_a_strict_integer(tmp_path, value, shown):
    # pydantic's lax int took false as 0 and "1" as 1
    path = _yaml(tmp_path, f"name: t\ndimensions:\n  - name: a\n    scale: {{min: {value}, "
                           f"max: 4}}\n")
    _fails(path, None, "dimensions.0.scale.min", f"valid integer, got {shown}")


def test_json_rubric_with_a_text_max_and_a_boolean_code(tmp_path):
    body = {"name": "t", "dimensions": [{"name": "a", "scale": {"min": 1, "max": "5"}}]}
    path = tmp_path / "r.json"
    path.write_text(json.dumps(body))
    _fails(path, None, "dimensions.0.scale.max", "got '5'")
    body["dimensions"][0]["scale"]["max"] = 5
    body["dimensions"][0]["exclusion"] = {"code": False, "meaning": "n/a"}
    path.write_text(json.dumps(body))
    _fails(path, None, "dimensions.0.exclusion.code", "got False")


@pytest.mark.parametrize("code", [2, 3, 5])
def test_an_exclusion_code_inside_the_scale_is_refused(tmp_path, code):
    path = _yaml(tmp_path, f"name: t\ndimensions:\n  - name: a\n    scale: {{min: 1, max: 5}}\n"
                           f"    exclusion: {{code: {code}, meaning: n/a}}\n")
    _fails(path, None, "dimensions.0", f"exclusion code {code} of 'a' is inside its scale 1-5, "
           f"so genuine {code}s would count as 'not applicable'")


@pytest.mark.parametrize("scale, code", [("{min: 1, max: 5}", 0), ("{min: 1, max: 5}", 9),
                                         ("{min: 0, max: 3}", 0)])
def test_an_exclusion_code_outside_the_scale_or_at_its_lowest_level_loads(tmp_path, scale,
                                                                          code):
    # 0 on 0-3 is the bundled PBIG rubric's "not a B2B product" level
    path = _yaml(tmp_path, f"name: t\ndimensions:\n  - name: a\n    scale: {scale}\n"
                           f"    exclusion: {{code: {code}, meaning: n/a}}\n")
    assert load_rubric(path).dimension("a").exclusion.code == code


def test_a_yaml_key_given_twice_names_the_key_and_its_line(tmp_path):
    # PyYAML kept the last scale (1-5) silently
    path = _yaml(tmp_path, "name: t\ndimensions:\n  - name: a\n    scale: {min: 1, max: 4}\n"
                           "    scale: {min: 1, max: 5}\n")
    _fails(path, 5, "scale", "key 'scale' appears twice in one mapping")


def test_a_json_rubric_key_given_twice(tmp_path):
    path = tmp_path / "r.json"
    path.write_text('{"name": "t", "name": "u", "dimensions": [{"name": "a", '
                    '"scale": {"min": 1, "max": 4}}]}')
    _fails(path, 1, "name", "key 'name' appears twice")


def test_a_yaml_merge_key_may_still_be_overridden(tmp_path):
    path = _yaml(tmp_path, "name: t\ndimensions:\n  - &d {name: a, scale: {min: 1, max: 4}}\n"
                           "  - {<<: *d, name: b}\n")
    assert load_rubric(path).names == ["a", "b"]


@pytest.mark.parametrize("where", ["rubric", "dimension"])
@pytest.mark.parametrize("name", ['""', '"   "'])
def test_an_empty_name_is_refused(tmp_path, where, name):
    rubric, dim = (name, "a") if where == "rubric" else ("t", name)
    path = _yaml(tmp_path, f"name: {rubric}\ndimensions:\n  - name: {dim}\n"
                           f"    scale: {{min: 1, max: 4}}\n")
    _fails(path, None, "name" if where == "rubric" else "dimensions.0.name",
           "must not be empty or blank")


def test_a_scale_of_more_than_1001_levels_is_refused(tmp_path):
    # 0..1000 is 1001 levels (the cap); 1..100000000 would build a 10**8-entry answer enum
    assert MAX_SCALE_LEVELS == 1001
    ok = _yaml(tmp_path, "name: t\ndimensions:\n  - name: a\n    scale: {min: 0, max: 1000}\n")
    assert load_rubric(ok).dimension("a").scale.max == 1000
    for scale, levels in (("{min: 0, max: 1001}", 1002), ("{min: 1, max: 100000000}",
                                                          100000000)):
        path = _yaml(tmp_path, f"name: t\ndimensions:\n  - name: a\n    scale: {scale}\n")
        _fails(path, None, "dimensions.0.scale", f"has {levels} levels; at most 1001 allowed")
