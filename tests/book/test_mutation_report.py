"""The mutation report says how many lines the pragmas keep from mutation (scripts/mutation_audit.py)."""

import sys

from resnet_nb.core import paths

sys.path.insert(0, str(paths.ROOT))
from scripts import mutation_audit  # noqa: E402

SOURCE = """
def shown(x):
    label = "a label"  # pragma: no mutate
    return x + 1


def drawn(x):  # pragma: no mutate block (display only)
    a = x
    b = a
    return b


def plain(x):
    return "# pragma: no mutate" if x else x
"""


def test_a_line_pragma_excludes_its_line_and_a_block_pragma_its_whole_function():
    # 1 line + the 4 lines of drawn + the string in plain (a line that contains the pragma text)
    assert mutation_audit.pragma_lines(SOURCE) == 1 + 4 + 1


def test_the_report_section_is_rewritten_in_place_and_the_rest_kept(monkeypatch):
    monkeypatch.setattr(mutation_audit, "pragma_section", lambda root=None: ["## Lines the pragmas exclude", "", "NEW"])
    text = "# Mutation audit\n\n| table |\n\n## resnet_nb.core.losses\n\ndetails\n"
    once = mutation_audit.with_pragma_section(text)
    assert once.index("NEW") < once.index("## resnet_nb.core.losses") and "details" in once
    assert mutation_audit.with_pragma_section(once) == once  # rewriting twice changes nothing
