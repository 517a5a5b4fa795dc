"""Li, Jiao, Han & Weissman, *Demystifying ResNet* (arXiv 1611.01186): Theorem 1 at the zero
initial point, checked step by step (:mod:`.theorem1`), the training dynamics of Section 4.2
(:mod:`.dynamics`) and the limits of the statement (:mod:`.limitations`)."""
