"""The live explorer of Hardt & Ma's Theorem 3.2 (chapter: book/hardt_ma_expressivity.ipynb): what the
page computes for labelled points of the plane, computed here by the package, for the browser's
cross-check (``data-live="hm-theorem32"``, ``scripts/site_static/live-hm-theorem32.js``).

The page runs :func:`~resnet_nb.hardt_ma.relu.theorem32.theorem32_construction` (greedy order, its
defaults) on the reader's points: in the plane ``d = 2``, so the width is ``k = 2``. Its random numbers
(the projection ``A0`` from ``default_rng(seed)``, the surrogates' directions from
``default_rng(seed + 1)``) come from :func:`normals`, exported with the page; everything else the page
computes itself. :func:`explore` is what the page shows; :func:`export_cases` the cross-check's cases.
"""

from __future__ import annotations

import numpy as np

from resnet_nb.core.checks import require_int
from resnet_nb.hardt_ma.relu.network import as_points, parameter_count
from resnet_nb.hardt_ma.relu.theorem32 import construction_steps, theorem32_construction

NAME = "hm-theorem32"
EXPLORERS = (NAME,)
#: The cross-check's tolerance, relative to the largest entry of each output.
RTOL = 1e-9

__all__ = ["EXPLORERS", "SEEDS", "CLASSES", "normals", "presets", "explore", "export_cases", "export_data"]

#: The draws of the projection the reader can choose (``seed``), and the most labels.
SEEDS = range(10)
CLASSES = 6


def normals(seeds=SEEDS, classes: int = CLASSES) -> dict:
    """The start of ``default_rng(s).standard_normal`` for every ``s`` in ``seeds`` and ``max(seeds) + 1``:
    ``2 * classes`` numbers each (4 for ``A0``, ``2 r`` for the surrogates), keyed by ``str(s)``."""
    count = 2 * require_int("classes", classes, minimum=2)
    return {str(s): np.random.default_rng(s).standard_normal(count).tolist() for s in [*seeds, max(seeds) + 1]}


def _grid(xy) -> np.ndarray:
    return np.round(np.asarray(xy, dtype=np.float64), 2)  # the page snaps points to a 0.01 grid


def presets() -> dict:
    """The page's presets, ``name -> (X (2, n) on the 0.01 grid, labels)``: the chapter's key figure's
    six points, XOR (pairs ``x, -x``: their margins tie), two rings, a 6 x 6 grid of 3 classes, three
    clusters, and two the construction refuses (two identical points; a point at the origin)."""
    key = construction_steps()
    rng = np.random.default_rng(7)
    centres = np.array([[0.5, -0.5, 0.0], [0.4, 0.4, -0.6]])
    clusters = centres[:, np.repeat(np.arange(3), 10)] + 0.15 * rng.standard_normal((2, 30))
    inner = 2 * np.pi * np.arange(8) / 8
    outer = 2 * np.pi * (np.arange(12) + 0.5) / 12
    rings = np.hstack(
        [0.4 * np.vstack([np.cos(inner), np.sin(inner)]), 0.9 * np.vstack([np.cos(outer), np.sin(outer)])]
    )
    g = np.arange(-0.75, 0.76, 0.3)
    gx, gy = np.meshgrid(g, g)
    gi, gj = np.meshgrid(np.arange(6), np.arange(6))
    xor = np.array([[0.6, -0.6, 0.6, -0.6], [0.6, -0.6, -0.6, 0.6]])
    return {
        "figure": (_grid(key["states"][0]), key["labels"].astype(int)),
        "xor": (xor, np.array([0, 0, 1, 1])),
        "rings": (_grid(rings), np.repeat([0, 1], [8, 12])),
        "grid": (_grid(np.vstack([gx.ravel(), gy.ravel()])), ((gi + gj) % 3).ravel()),
        "clusters": (_grid(clusters), np.repeat(np.arange(3), 10)),
        "identical": (np.array([[0.3, -0.5, 0.3], [0.2, 0.4, 0.2]]), np.array([0, 1, 1])),
        "origin": (np.array([[0.0, 0.7, -0.4], [0.0, 0.1, 0.6]]), np.array([0, 1, 0])),
    }


def explore(X, labels, seed: int = 0) -> dict:
    """Everything the explorer shows: the projection ``A0``, the surrogates ``Q`` and their ``radius``,
    the points after the projection and after every block (``states``), every block's ``U``, ``V``,
    ``b``, the points it moves (``idx``, -1 for an unused unit) and their ``margins``; the last
    block, the outputs, the parameter count, the smallest margin; or, where the package refuses,
    its reason (``refusal``). A block's units are listed in the order of the points they move (the
    order of a block's units does not change what it computes)."""
    X = as_points("X", X)
    labels = np.asarray(labels)
    try:
        net, rep = theorem32_construction(X, labels, seed=require_int("seed", seed, minimum=0))
    except ValueError as err:
        return dict(refusal=str(err))
    states = net.trajectory(X)
    Us, Vs, bs, idxs, mgs = [], [], [], [], []
    for (U, V, b), H, mg in zip(net.blocks, states, rep["block_margins"]):
        used = np.flatnonzero(np.abs(U).sum(1) > 0)  # an unused unit: U row 0, b = -1
        idx = np.array([np.flatnonzero((H.T == U[a]).all(1))[0] for a in used])
        order = np.concatenate([used[np.argsort(idx)], np.arange(used.size, len(U))])
        Us.append(U[order])
        Vs.append(V[:, order])
        bs.append(b[order])
        idxs.append(np.concatenate([np.sort(idx), -np.ones(len(U) - used.size, dtype=int)]).tolist())
        mgs.append([*mg[np.argsort(idx)].tolist(), *[None] * (len(U) - used.size)])
    Ul, Vl, bl = net.last
    count = parameter_count(net)
    return dict(
        k=rep["k"],
        r=rep["r"],
        n=rep["n"],
        A0=net.A0,
        radius=rep["radius"],
        Q=Ul.T,
        states=np.array(states),
        U=np.array(Us),
        V=np.array(Vs),
        b=np.array(bs),
        idx=idxs,
        margins=mgs,
        last_U=Ul,
        last_V=Vl,
        last_b=bl,
        outputs=net(X),
        trainable=count["trainable"],
        residual=count["residual"],
        last_params=count["last"],
        projection=count["projection"],
        min_margin=rep["min_margin"],
    )


def _random_case(rng, n: int, r: int):
    return _grid(rng.uniform(-1, 1, (2, n))), rng.integers(0, r, n)


def export_cases() -> dict:
    """The cross-check's cases, ``{NAME: [dict(label, input=dict(X, labels, seed), output, rtol)]}``:
    every preset at seeds 0 and 3, random points (n from 1 to 48, up to 6 labels, several seeds),
    sets of pairs ``x, -x`` (tied margins), and a refusal."""
    out = []
    for name, (X, y) in presets().items():
        for seed in (0, 3):
            out.append((f"{name}, seed {seed}", X, y, seed))
    rng = np.random.default_rng(30)
    for i, n in enumerate((1, 2, 3, 5, 8, 12, 20, 30, 40, 48)):
        X, y = _random_case(rng, n, 1 + i % CLASSES)
        out.append((f"random n = {n}", X, y, i % len(SEEDS)))
    for n in (2, 6, 12):
        X, y = _random_case(rng, n, 3)
        out.append((f"pairs x, -x, n = {2 * n}", np.hstack([X, -X]), np.concatenate([y, y]), n % len(SEEDS)))
    X, y = _random_case(rng, 10, 2)
    X[:, 7] = X[:, 2]
    out.append(("identical points, different labels", X, y, 1))
    return {
        NAME: [
            dict(label=name, input=dict(X=X, labels=y, seed=seed), output=explore(X, y, seed), rtol=RTOL)
            for name, X, y, seed in out
        ]
    }


def export_data() -> dict:
    """The data the page loads: the random numbers (:func:`normals`) and the presets."""
    return {
        NAME: dict(
            normals=normals(),
            presets={k: dict(X=X, labels=y) for k, (X, y) in presets().items()},
        )
    }
