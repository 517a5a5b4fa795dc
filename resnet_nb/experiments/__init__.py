"""The experiments of Li et al. section 5, one module per figure, run by one engine (:mod:`.engine`).

Each figure module exposes ``SCALES``, ``configurations(config)``, ``run_one(item, device)``,
``run(config, device, progress, store)`` and ``plot(table, ax)``; see :mod:`.engine`.
"""
from resnet_nb.experiments import engine  # noqa: F401
from resnet_nb.experiments.engine import FIGURES, get_config, load_figure, load_results, run_items  # noqa: F401
