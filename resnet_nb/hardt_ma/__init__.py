"""Hardt & Ma, *Identity Matters in Deep Learning* (arXiv 1611.04231): the linear residual
network's optimisation landscape (:mod:`.linear`), the ReLU network's expressivity
(:mod:`.relu`) and the interface between the two papers' notations (:mod:`.interface`)."""
