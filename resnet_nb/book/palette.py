"""One colour and one display name per architecture, for every figure and chart of the book (book/*.ipynb).

A leaf module (it imports nothing from the package), so that the core and paper layers may use
it without importing the book layer: :mod:`resnet_nb.book.plotting` and
:mod:`resnet_nb.shared.common` re-export :data:`COLORS` and :data:`LABELS` from here, and the
kernel-free charts of :mod:`resnet_nb.book.views` use the same colours through an explicit
Vega-Lite scale. Colours are hex strings (matplotlib, Vega and CSS read them alike).
"""

from __future__ import annotations

__all__ = ["COLORS", "LABELS", "ORDER", "SEQUENTIAL", "CYCLE", "color", "label", "sequential"]

#: colour by architecture (Li et al.'s five networks first, then the others the book draws)
COLORS = {
    "xavier": "#d62728",  # red
    "orthogonal": "#ff7f0e",  # orange
    "1-shortcut": "#2ca02c",  # green
    "2-shortcut": "#1f77b4",  # blue
    "3-shortcut": "#9467bd",  # purple
    "he": "#8c564b",  # brown: plain network, He initialisation (gain sqrt 2)
    "plain": "#7f7f7f",  # grey: a network without shortcuts
    "residual": "#17becf",  # teal: a residual network of Hardt & Ma (identity plus one layer)
}

#: display name by architecture (legends, tables, chart menus)
LABELS = {
    "xavier": "Xavier",
    "orthogonal": "Orthogonal",
    "1-shortcut": "1-shortcut",
    "2-shortcut": "2-shortcut",
    "3-shortcut": "3-shortcut",
    "he": "He (plain, gain sqrt 2)",
    "plain": "Plain",
    "residual": "Residual",
}

#: the order of the architectures in legends and menus
ORDER = tuple(COLORS)

#: matplotlib's default colour cycle for lines that are not an architecture (set by plotting.style)
CYCLE = ("#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#7f7f7f", "#17becf")

#: an ordered ramp (light to dark: viridis without its palest yellow) for an ordered quantity such as depth or width
SEQUENTIAL = ("#b5de2b", "#6ece58", "#35b779", "#1f9e89", "#26828e", "#31688e", "#3e4989", "#482878", "#440154")


def color(arch: str) -> str:
    """The colour of ``arch`` (KeyError for an architecture the palette does not know)."""
    return COLORS[arch]


def label(arch: str) -> str:
    """The display name of ``arch`` (the key itself if the palette has no name for it)."""
    return LABELS.get(arch, arch)


def sequential(n: int) -> list[str]:
    """``n`` colours spread over :data:`SEQUENTIAL`, light to dark (``n`` >= 1)."""
    if n < 1:
        raise ValueError(f"n must be at least 1, got {n}")
    if n == 1:
        return [SEQUENTIAL[-3]]
    k = len(SEQUENTIAL) - 1
    return (
        [SEQUENTIAL[round(i * k / (n - 1))] for i in range(n)]
        if n <= len(SEQUENTIAL)
        else [SEQUENTIAL[min(k, i * len(SEQUENTIAL) // n)] for i in range(n)]
    )
