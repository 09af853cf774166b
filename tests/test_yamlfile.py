"""The shared YAML reader (endpoints, jury and rubric files): aliases may repeat a value, not
multiply the file."""

from __future__ import annotations

from pathlib import Path

import pytest

from jurybox.errors import DataError
from jurybox.providers.endpoints import load_endpoints
from jurybox.yamlfile import read_yaml

#: 7 levels of 9 aliases: 9**7 = 4,782,969 values from 7 lines (a "billion laughs" file)
LAUGHS = ", ".join(
    f"&l{n} [" + ", ".join(["1"] * 9 if n == 0 else [f"*l{n - 1}"] * 9) + "]"
    for n in range(7))


def test_aliases_are_counted_expanded_against_the_limit(tmp_path: Path) -> None:
    path = tmp_path / "x.yaml"
    path.write_text("[&a [1,1,1,1],*a,*a,*a,*a,*a]")  # 29 bytes
    # the top list (1) and six copies of [1,1,1,1] (5 values each): 31 values
    assert read_yaml(path, 31, "file")[0] == [[1, 1, 1, 1]] * 6
    with pytest.raises(DataError) as caught:
        read_yaml(path, 30, "file")
    assert str(caught.value) == (
        f"{path}: invalid YAML: its aliases (*name) expand to more than 30 values; write the "
        f"values out (an alias repeats a value, it must not multiply the file)")


def test_a_recursive_alias_is_read(tmp_path: Path) -> None:
    path = tmp_path / "x.yaml"
    path.write_text("- &a [1, *a]\n")
    data = read_yaml(path, 100, "file")[0]
    assert data[0][0] == 1 and data[0][1] is data[0]


def test_an_alias_bomb_in_an_endpoints_file_is_refused_before_its_value_is_shown(
        tmp_path: Path) -> None:
    path = tmp_path / "pool.yaml"
    path.write_text(f"- url: http://a/v1\n  weight: [{LAUGHS}]\n")
    with pytest.raises(DataError) as caught:
        load_endpoints(path)  # the weight's message would show all 4.8 million values
    assert str(caught.value).startswith(f"{path}: invalid YAML: its aliases (*name) expand "
                                        f"to more than 1,000,000 values")
