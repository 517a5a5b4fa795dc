"""Project-wide pytest configuration (the unit tests have their own in tests/conftest.py).

nbval (``make test-notebooks``) sends each cell to the kernel with ``store_history=False``, so
IPython's "a trailing ';' silences the cell's value" looks at the previous history entry instead
of the cell and shows values that Jupyter, JupyterLab and the book build hide. Executing with
history, as every notebook front end does, makes the second execution comparable with the first.
"""
try:
    from nbval.kernel import RunningKernel
except ImportError:  # nbval not installed: nothing to adjust
    RunningKernel = None

if RunningKernel is not None:

    def _execute_cell_input(self, cell_input, allow_stdin=None):
        return self.kc.execute(cell_input, store_history=True, allow_stdin=allow_stdin,
                               stop_on_error=False)

    RunningKernel.execute_cell_input = _execute_cell_input
