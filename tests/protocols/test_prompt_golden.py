"""Cache keys of prompts built from ordinary dataset text must not change when escaping
learns new look-alikes: otherwise every cached answer of an ordinary run is orphaned.

The keys below were computed with jurybox at commit a52a0bd (before escape_text handled
fullwidth brackets and invisible separators). ORDINARY holds what must stay byte-identical:
ASCII brackets (``[[`` gets its usual ``[ [``), a ZWJ emoji sequence, a soft hyphen and a
zero-width space between letters (not between brackets), and single fullwidth brackets.
"""

import os
from jurybox.cache import cache_key
from jurybox.protocols.examples import Example
from jurybox.protocols.pairwise_prompts import pairwise_request
from jurybox.protocols.prompts import escape_text, listwise_request
from jurybox.protocols.rubric_prompts import rubric_request
from jurybox.rubrics import Dimension, Exclusion, Scale

IDENTITY = {"provider": "vllm", "base_url": "http://localhost:8000/v1", "model": "m"}
ORDINARY = ("Paris is the capital [1]; see a[b[0]] and [[not a token]]. "
            "Caf\u00e9 \U0001F469\u200d\U0001F4BB soft\u00adhyphen \uff3b\u6ce8\uff3d x\u200by")
DIM = Dimension(name="clarity", description="How clear the item is.",
                scale=Scale(min=1, max=4, levels={1: "unclear", 4: "very clear"}),
                exclusion=Exclusion(code=0, meaning="not an item"))


def test_ordinary_text_is_escaped_as_before():
    assert escape_text(ORDINARY) == ORDINARY.replace("[[", "[ [")


def test_listwise_prompt_of_ordinary_text_hashes_as_before():
    # layout 1 (runs written before prompt layout 2 are rescored with it): byte-identical
    request = listwise_request("Capital of France?", [ORDINARY, "Lyon."], tag="0123abcd", seed=3,
                               version=1)
    assert cache_key(IDENTITY, request) == \
        "94d6a24203ed4c6c7719140c6e55a1e1bff150c4896256f1221289f27330a8b9"
    # layout 2 (the default since): golden from its first version
    request = listwise_request("Capital of France?", [ORDINARY, "Lyon."], tag="0123abcd", seed=3,
                               question_tag="feedbeef")
    assert cache_key(IDENTITY, request) == \
        "9eb7a33723c3436fff9ec2fe498b54714cb4dc19a56a09576f3f2ef9c051d0e4"


def test_listwise_layout_2_shares_everything_before_the_candidates():
    a = listwise_request("Q?", ["x", "y", "z"], tag="00000001", question_tag="abcdef12")
    b = listwise_request("Q?", ["z", "x", "y"], tag="00000002", question_tag="abcdef12")
    ua, ub = a.messages[1].content, b.messages[1].content
    prefix = os.path.commonprefix([ua, ub])
    assert a.messages[0] == b.messages[0]
    assert prefix.endswith("[[candidate A 0000000") and "Judge every candidate" in prefix
    assert "[[question abcdef12]]\nQ?\n[[end question abcdef12]]" in prefix
    assert ua.endswith("Reply with only the JSON object described above.")


def test_pairwise_prompt_of_ordinary_text_hashes_as_before():
    request = pairwise_request("Capital of France?", ORDINARY, "Lyon.", tag="0123abcd", seed=3)
    assert cache_key(IDENTITY, request) == \
        "784a77057bf60a021af4245eabd4cd67f71401420210fff6bae07344b75e2e9f"


def test_rubric_prompt_of_ordinary_text_hashes_as_before():
    request = rubric_request(DIM, ORDINARY, [(Example("i2", "r1", 3.0), "Shown [[x]].")],
                             tag_parts=(0, "i1", DIM.name, 0), seed=5)
    assert cache_key(IDENTITY, request) == \
        "80b401f8ec3c4fa3e50a6e2d22c848e745e7ee7e99b209c4e2fe89b8d9e552db"
