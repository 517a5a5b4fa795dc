"""What the papers' code shares and is not a statement of either paper (book/*.ipynb): the set-up
below ``li``, ``hardt_ma`` and ``experiments``, so that those three need not import one another.

* :mod:`.common`: the five architectures of Li et al. section 5 and their initial weights, the
  cached whitened MNIST and its optimum, the committed tables of the figures and the summaries
  more than one paper package reads (Figure 5's mean lg cond by depth and its flatness fraction);
* :mod:`.store`: the result store (one checksummed record per work item), its reader, and the
  provenance every record carries.
"""
