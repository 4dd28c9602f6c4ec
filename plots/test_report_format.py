"""report_format.bound_cells (issue 23, item 4): a table's space against the information-theoretic
bound, the efficiency log2(1/ε) ÷ bits/key and the bits over it, bits/key − log2(1/ε)."""

import math

import pytest

from report_format import BOUND_HEADERS, DASH, bound_cells


def test_bound_cells_at_one_percent():
    # log2(1/0.01) = log2(100) = 2 + log2(25) = 6.6439 bits: 6.6439 / 9.6 = 0.6921, 9.6 − 6.6439 = 2.9561.
    assert bound_cells(9.6, 0.01) == ["0.692", "+2.96"]


def test_bound_cells_at_a_power_of_two():
    # ε = 2^-8: the bound is 8 bits exactly; 8 / 10 = 0.8, 10 − 8 = 2.
    assert bound_cells(10, 2 ** -8) == ["0.800", "+2.00"]
    # At the bound itself the efficiency is 1 and nothing is over it.
    assert bound_cells(8, 2 ** -8) == ["1.000", "+0.00"]


def test_bound_cells_below_the_bound_is_signed():
    # A lucky measurement can fall below the bound: 7 bits at ε = 2^-8 is 1 bit under it, 8/7 = 1.143.
    assert bound_cells(7, 2 ** -8) == ["1.143", "-1.00"]


@pytest.mark.parametrize("fpr", [0, 0.0, math.nan, None, 1, 1.0, 1.5, -0.1])
def test_bound_cells_without_a_finite_bound_are_dashes(fpr):
    assert bound_cells(9.6, fpr) == [DASH, DASH] == ["–", "–"]


@pytest.mark.parametrize("bits", [math.nan, None, 0, -1.0])
def test_bound_cells_without_a_space_are_dashes(bits):
    assert bound_cells(bits, 0.01) == ["–", "–"]


def test_bound_headers_name_the_two_cells():
    assert BOUND_HEADERS == ["efficiency log2(1/ε)/bits", "bits over log2(1/ε)"]
