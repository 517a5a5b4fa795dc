"""Sphinx local extension: writes the live explorers' data and cross-check cases into the site.

At the end of an HTML build, every exporter module of ``resnet_nb.book.live`` writes
``_static/live/<name>.data.json`` (what an explorer's page loads) and ``<name>.cases.json``
(inputs and the package's outputs, read by the browser test only). Pages without an explorer
load nothing of it. Other builders (LaTeX for the PDF) get nothing: there the explorers are stills.
"""

from __future__ import annotations

from pathlib import Path

from sphinx.util import logging

LOG = logging.getLogger(__name__)


def _export(app, exception):
    if exception is not None or app.builder.format != "html":
        return
    from resnet_nb.book.live import write_all

    written = write_all(Path(app.outdir) / "_static" / "live")
    LOG.info(f"live_export: {len(written)} files in _static/live")


def setup(app):
    app.connect("build-finished", _export)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
