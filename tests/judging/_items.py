"""In-memory items for the API tests: ``count`` three-candidate items from ``q<first>``."""


def items(first: int, count: int = 8) -> list[dict]:
    return [{"id": f"q{i}", "prompt": f"Question {i}?",
             "candidates": [f"answer {i}.{j}" for j in range(3)]}
            for i in range(first, first + count)]


def ids(first: int, count: int = 8) -> list[str]:
    return [f"q{i}" for i in range(first, first + count)]
