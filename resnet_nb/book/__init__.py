"""What the chapters show (book/*.ipynb): the claims ledger and its HTML (:mod:`.ledger`), numbers
as the prose prints them (:mod:`.show`), the palette (:mod:`.palette`), figures (:mod:`.plotting`,
:mod:`.li_figures`, :mod:`.hardt_ma_figures`, :mod:`.experiment_figures`), widgets
(:mod:`.views`) and the kernel-free explorers (:mod:`.explorers`)."""

from resnet_nb.book import ledger  # noqa: F401  (registers how a Check looks in a notebook)
