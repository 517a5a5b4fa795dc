"""``jupyter-book build`` with Sphinx's parallel read: the chapters execute on every core.

Jupyter Book 1 always calls Sphinx with one process; this wrapper passes ``jobs`` (the
environment variable ``BOOK_JOBS``, default: the number of cores) and otherwise takes the same
arguments as ``jupyter-book``. ``scripts/exec_cache.py`` makes each document its own task, the
longest first, and replays chapters whose record is current.
"""

from __future__ import annotations

import os
import sys

import jupyter_book.cli.main as cli
import jupyter_book.sphinx as jb_sphinx

_build_sphinx = jb_sphinx.build_sphinx


def build_sphinx(*args, **kwargs):
    kwargs["jobs"] = int(os.environ.get("BOOK_JOBS") or os.cpu_count() or 1)
    return _build_sphinx(*args, **kwargs)


# `jupyter-book build` imports build_sphinx from jupyter_book.sphinx inside the command
jb_sphinx.build_sphinx = build_sphinx

if __name__ == "__main__":
    sys.exit(cli.main())
