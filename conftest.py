"""Project-wide pytest configuration (the unit tests have their own in tests/conftest.py).

nbval (``make test-notebooks``) sends each cell to the kernel with ``store_history=False``, so
IPython's "a trailing ';' silences the cell's value" looks at the previous history entry instead
of the cell and shows values that Jupyter, JupyterLab and the book build hide. Executing with
history, as every notebook front end does, makes the second execution comparable with the first.

nbval's own sanitizer replaces text by regular expressions, the same way in both executions. A
float64 rounding residue (``2.22e-16`` in one run, ``4.44e-16`` in the next) cannot be matched
that way without hiding every number of its size, so the comparison reconciles residues pair by
pair instead (``tests/nbval_numbers.py``): two residues at the same place agree when their orders
of magnitude are at most one apart; every other number is compared digit for digit. Figures
(image/png) are compared byte for byte, except in cells tagged ``nbval-ignore-figure``.

A kernel that does not answer at start-up is replaced by a fresh one (``tests/nbval_kernels.py``)
instead of turning all of its notebook's cells into errors; the kernels' stderr is kept in
``_build/nbval-kernels/``.
"""

import sys
from pathlib import Path

try:
    import nbval.kernel
    from nbval.kernel import RunningKernel
    from nbval.plugin import IPyNbCell
except ImportError:  # nbval not installed: nothing to adjust
    RunningKernel = IPyNbCell = None

if RunningKernel is not None or IPyNbCell is not None:
    sys.path.insert(0, str(Path(__file__).resolve().parent / "tests"))

if RunningKernel is not None:

    def _execute_cell_input(self, cell_input, allow_stdin=None):
        return self.kc.execute(cell_input, store_history=True, allow_stdin=allow_stdin, stop_on_error=False)

    RunningKernel.execute_cell_input = _execute_cell_input

    # A kernel that does not answer its first kernel_info request is replaced by a fresh one
    # (tests/nbval_kernels.py), and the kernel's stderr is kept in _build/nbval-kernels/.
    from nbval_kernels import start_with_retries

    nbval.kernel.start_new_kernel = start_with_retries(nbval.kernel.start_new_kernel)

if IPyNbCell is not None:
    from nbval_numbers import reconcile_outputs

    _compare_outputs = IPyNbCell.compare_outputs

    # Figures are compared too: nbval skips image/png unless run with nbdime, but a figure drawn
    # from a wrong number is as wrong as the number. matplotlib's PNG (Agg, the inline backend,
    # no timestamp in its metadata) is the same bytes for the same data and the same versions,
    # so the two executions' images must be identical. A cell whose figure legitimately varies
    # (wall-clock times drawn) carries the tag nbval-ignore-figure: only its images are skipped.
    IGNORE_FIGURE = "nbval-ignore-figure"

    def _compare_with_residues(self, test, ref, skip_compare=None):
        skip = tuple(skip_compare or self.parent.skip_compare)
        if IGNORE_FIGURE not in self.cell.get("metadata", {}).get("tags", []):
            skip = tuple(k for k in skip if k != "image/png")
        return _compare_outputs(self, reconcile_outputs(ref, test), ref, skip)

    IPyNbCell.compare_outputs = _compare_with_residues
