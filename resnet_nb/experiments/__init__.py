"""The experiments of Li et al. section 5 (chapters: book/exp_*.ipynb), one module per figure,
run by one engine (:mod:`.engine`).

Each figure module exposes ``SCALES``, ``configurations(config)`` and ``run_one(item, device)``;
``engine.run(module, config)`` runs it, and :mod:`resnet_nb.book.experiment_figures` draws it.
"""

from resnet_nb.experiments import engine  # noqa: F401
from resnet_nb.experiments.engine import FIGURES, get_config, load_figure, run, run_items  # noqa: F401
