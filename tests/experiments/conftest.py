"""Shared fixtures of the experiment tests: a stand-in figure module for the engine."""

import types

import pytest


@pytest.fixture
def fake_module():
    """A factory of figure modules whose run_one squares a number and counts its calls in ``calls``
    (and is interrupted at ``fail_at``)."""

    def make(calls, fail_at=None):
        """A figure module whose run_one squares a number and counts its calls."""
        mod = types.ModuleType("fake_fig")
        mod.SCALES = {"default": {"xs": [1, 2, 3, 4]}, "paper": {"xs": [1, 2, 3, 4, 5, 6]}}
        mod.configurations = lambda config: [{"figure": "fake", "x": x} for x in config["xs"]]

        def run_one(item, device="cpu"):
            calls.append(item["x"])
            if fail_at is not None and item["x"] == fail_at:
                raise KeyboardInterrupt
            return [{"x": item["x"], "y": item["x"] ** 2}]

        mod.run_one = run_one
        return mod

    return make
