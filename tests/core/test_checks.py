"""Arguments checked at the door (resnet_nb.core.checks): a wrong type is a TypeError, a value out
of range a ValueError, and each message names the argument."""

import math

import numpy as np
import pytest

from resnet_nb.core.checks import ArgumentTypeError, require_choice, require_float, require_int


def test_a_wrong_type_is_a_type_error_that_names_the_argument():
    for bad in ("3", 2.0, True, None):
        with pytest.raises(TypeError, match=r"\bdepth\b"):
            require_int("depth", bad)
    for bad in ("0.1", True, None, [0.1]):
        with pytest.raises(TypeError, match=r"\blr\b"):
            require_float("lr", bad)


def test_a_value_out_of_range_is_a_value_error_not_a_type_error():
    with pytest.raises(ValueError, match=r"\bdepth\b") as err:
        require_int("depth", 0)
    assert not isinstance(err.value, TypeError)
    for bad in (math.nan, math.inf, -1.0):
        with pytest.raises(ValueError, match=r"\blr\b") as err:
            require_float("lr", bad, low=0)
        assert not isinstance(err.value, TypeError)
    with pytest.raises(ValueError, match=r"\bscheme\b"):
        require_choice("scheme", "he", ["xavier", "orthogonal"])


def test_a_wrong_type_is_still_caught_by_code_that_catches_value_errors():
    assert issubclass(ArgumentTypeError, ValueError) and issubclass(ArgumentTypeError, TypeError)
    with pytest.raises(ValueError):
        require_int("depth", "3")


def test_good_values_come_back_as_plain_numbers():
    assert require_int("depth", np.int64(4)) == 4 and type(require_int("depth", np.int64(4))) is int
    assert require_float("lr", np.float32(0.5), low=0, high=1) == 0.5
    assert require_float("lr", 1, low=0, high=1) == 1.0
