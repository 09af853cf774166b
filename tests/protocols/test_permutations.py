import itertools

import pytest

from jurybox.protocols import base_order, permutation_set


def test_base_order_is_a_seeded_shuffle_not_dataset_order():
    orders = {base_order(4, seed=0, item_id=f"i{j}") for j in range(50)}
    assert len(orders) > 10  # shuffled per item, not a fixed order
    assert base_order(4, seed=0, item_id="i1") == base_order(4, seed=0, item_id="i1")
    assert any(base_order(4, seed=s, item_id="i1") != base_order(4, seed=0, item_id="i1")
               for s in range(1, 5))


def test_n4_k7_is_four_cyclic_shifts_then_three_distinct_extras():
    base = (2, 0, 3, 1)
    perms = permutation_set(base, 7, seed=0, item_id="x")
    assert perms[:4] == [(2, 0, 3, 1), (0, 3, 1, 2), (3, 1, 2, 0), (1, 2, 0, 3)]
    assert len(perms) == 7 and len(set(perms)) == 7
    assert all(sorted(p) == [0, 1, 2, 3] for p in perms[4:])
    # each candidate visits each position exactly once across the cyclic shifts
    for pos in range(4):
        assert sorted(p[pos] for p in perms[:4]) == [0, 1, 2, 3]


def test_k_at_least_n_factorial_gives_all_orders():
    base = (1, 3, 0, 2)
    for k in (24, 30):
        perms = permutation_set(base, k, seed=0, item_id="x")
        assert len(perms) == 24
        assert set(perms) == set(itertools.permutations(range(4)))
        assert perms[0] == base


def test_k_below_n_takes_leading_shifts_and_extras_are_seeded():
    assert permutation_set((0, 1, 2, 3, 4), 2, seed=0, item_id="x") == [(0, 1, 2, 3, 4),
                                                                        (1, 2, 3, 4, 0)]
    a = permutation_set((0, 1, 2, 3, 4), 9, seed=1, item_id="x")
    assert a == permutation_set((0, 1, 2, 3, 4), 9, seed=1, item_id="x")
    assert a != permutation_set((0, 1, 2, 3, 4), 9, seed=2, item_id="x")


def test_k_must_be_positive():
    with pytest.raises(ValueError):
        permutation_set((0, 1), 0, seed=0, item_id="x")
