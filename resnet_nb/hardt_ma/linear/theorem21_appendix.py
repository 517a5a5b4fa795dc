"""Two steps of the proof of Hardt & Ma's Theorem 2.1 in appendix A (chapter: book/hardt_ma_linear.ipynb):
the rotation step ``||I - T(phi)||`` and the symmetric positive definite case (appendix A.1).

The claims ``hm-thm21-rotation-step`` and ``hm-psd-special-case`` are declared here.
"""

from __future__ import annotations

import math

import numpy as np

from resnet_nb.core.checks import require_float
from resnet_nb.core.claims import Check, claim, eps_criterion
from resnet_nb.hardt_ma.linear.network import gamma_of, max_spectral_norm, random_positive_det

WHERE = ["book/hardt_ma_linear.ipynb", "tests/hardt_ma/test_theorem2_1_appendix.py"]

__all__ = ["rotation_step_norm", "claim_rotation_step", "claim_psd_case"]


def rotation_step_norm(phi: float) -> dict:
    """``||I - T(phi)||`` for the planar rotation ``T(phi)``, beside the value ``|sin phi|`` printed
    in the proof of Theorem 2.1 and the true value ``2 |sin(phi / 2)|``."""
    phi = require_float("phi", phi)
    T = np.array([[math.cos(phi), -math.sin(phi)], [math.sin(phi), math.cos(phi)]])
    return dict(
        phi=phi,
        norm=float(np.linalg.norm(np.eye(2) - T, 2)),
        printed=abs(math.sin(phi)),
        formula=2 * abs(math.sin(phi / 2)),
    )


@claim(
    "hm-thm21-rotation-step",
    source="Hardt & Ma, proof of Theorem 2.1 (appendix A): ||I - T(phi)||",
    statement=r"For the planar rotation $T(\phi)$, $\|I - T(\phi)\| = 2|\sin(\phi/2)|$ (so the proof's estimate "
    r"$\le \pi/q$ survives, as $2|\sin(\phi/2)| \le |\phi|$).",
    verdict="fails as printed",
    printed=r"$\|I - T(\phi)\| = |\sin\phi|$",
    falsifier=r"the printed value $|\sin\phi|$ at the same angles",
    falsifier_kind="plausible false statement",
    where=WHERE,
)
def claim_rotation_step(falsify: bool = False) -> Check:
    rows = [rotation_step_norm(phi) for phi in np.linspace(0.1, math.pi, 12)]
    worst = max(abs(r["norm"] - (r["printed"] if falsify else r["formula"])) for r in rows)
    tol, crit = eps_criterion(4, 2.0)
    return Check(
        "||I - T(phi)|| at 12 angles in [0.1, pi]",
        "max |spectral norm - formula|",
        worst,
        tol,
        crit,
        nontrivial=max(r["norm"] for r in rows),
        nontrivial_what="largest ||I - T(phi)||",
    )


@claim(
    "hm-psd-special-case",
    source="Hardt & Ma, appendix A.1 (the symmetric positive definite case)",
    statement=r"If $R$ is symmetric positive definite, $A_i = R^{1/\ell} - I$ gives $|||A||| \le "
    r"e^{\gamma/\ell} - 1 \le 3\gamma/\ell$ when $\ell \ge \gamma$.",
    verdict="holds",
    falsifier=r"the bound $3\gamma/\ell$ without $\ell \ge \gamma$ ($\gamma = 10$, $\ell = 2$)",
    falsifier_kind="plausible false statement",
    where=WHERE,
)
def claim_psd_case(falsify: bool = False) -> Check:
    rng = np.random.default_rng(11)
    worst = 0.0
    cases = (
        [(10.0, 2)]
        if falsify
        else [(float(g), int(l)) for g, l in zip(rng.uniform(0.1, 5, 30), rng.integers(1, 60, 30)) if l >= g]
    )
    for gamma, l in cases:
        R = random_positive_det(4, rng, gamma=gamma)
        R = R.T @ R  # symmetric positive definite; its gamma is twice that of the factor
        g = gamma_of(R)
        if falsify:
            R, g = np.diag([math.exp(gamma), 1.0, 1.0, math.exp(-gamma)]), gamma
        l = max(l, int(math.ceil(g))) if not falsify else l
        w, V = np.linalg.eigh(R)
        A = np.broadcast_to(V @ np.diag(w ** (1.0 / l)) @ V.T - np.eye(4), (l, 4, 4))
        worst = max(worst, max_spectral_norm(A) / (3 * g / l))
    return Check(
        f"A_i = R^(1/l) - I for {len(cases)} SPD matrices",
        "max |||A||| / (3 gamma / l)",
        worst,
        1.0,
        "the stated inequality, ratio <= 1",
    )
