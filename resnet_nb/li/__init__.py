"""Li, Jiao, Han & Weissman, *Demystifying ResNet* (arXiv 1611.01186), for the chapters
book/theorem1.ipynb, book/theorem1_dynamics.ipynb and book/li_limitations.ipynb: Theorem 1 at the
zero initial point, checked step by step (:mod:`.theorem1`), the training dynamics of Section 4.2
(:mod:`.dynamics`) and the limits of the statement (:mod:`.limitations`). Their figures and
widgets are drawn by :mod:`resnet_nb.book.li_figures`."""
