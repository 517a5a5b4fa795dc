"""The mathematics the two papers share, with no knowledge of either paper's chapters.

Data and sufficient statistics (:mod:`.data`), the n-shortcut networks of Definitions 2-3
(:mod:`.networks`), their initialisations (:mod:`.init`), the loss of Eq. 6 and its optimum
(:mod:`.losses`), exact Hessians (:mod:`.hessians`; the ReLU one in :mod:`.relu_hessian`),
gradient descent (:mod:`.train`), the convolutional network of Hardt & Ma's Section 5
(:mod:`.conv`), argument checks (:mod:`.checks`), where files live (:mod:`.paths`) and the
check-and-claim type every chapter's statements use (:mod:`.claims`). Nothing here imports the
papers' modules or the book's.
"""
