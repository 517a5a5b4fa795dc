"""Hardt & Ma, *Identity Matters in Deep Learning* (arXiv 1611.04231) (chapters: book/hardt_ma_linear.ipynb,
book/hardt_ma_expressivity.ipynb): the linear residual network's optimisation landscape (:mod:`.linear`,
section 2), the ReLU network's expressivity (:mod:`.relu`, section 3 and appendix B) and the interface
between Lemmas B.1 and B.2 (:mod:`.interface`). The chapters' figures are
:mod:`resnet_nb.book.hardt_ma_figures`."""
