"""partitions="all-balanced-entries": every balanced split of the N x d entries, on y_i = (x_i0 + x_i1)^2.
By hand: over the token partition {0} | {1} each output reads one side only (sep 1); over the three
balanced entry partitions, {x0_0, x0_1} | {x1_*} keeps token 0 together (sep 1) and the other two
split x0_0 from x0_1, where (a + b)^2 = a^2 + 2ab + b^2 has sep 3."""

import netpoly


def _net():
    return netpoly.from_numpy([{"type": "channel_mix", "W": [[1, 1]], "activation": "square"}], tokens=2, width=2)


def test_entry_partitions_by_hand():
    rs = _net().seprank(partitions="all-balanced-entries", outputs=[(0, 0)])
    assert len(rs) == 3
    assert sorted(r.value for r in rs) == [1, 3, 3]
    assert (rs.sup["lower"], rs.inf["lower"]) == (3, 1)


def test_token_partitions_keep_each_token_together():
    rs = _net().seprank(partitions="all-balanced", outputs=[(0, 0)])
    assert [r.value for r in rs] == [1]
