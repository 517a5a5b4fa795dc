"""pytest configuration shared by all tests.

Hypothesis draws its examples from a fixed seed (``derandomize=True``), so that a test run is
reproducible: CI and a developer see the same examples, and a flaky failure cannot appear on
one machine only. To explore new examples locally: ``pytest --hypothesis-profile=explore``.
"""

from hypothesis import settings

settings.register_profile("ci", derandomize=True, print_blob=True)
settings.register_profile("explore", derandomize=False, print_blob=True)
settings.load_profile("ci")
