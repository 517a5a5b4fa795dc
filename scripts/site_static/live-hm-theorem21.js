// live-hm-theorem21.js: Hardt & Ma, Theorem 2.1, computed in the page: the factorisation
// R = (I + A_l) ... (I + A_1) of a 2 x 2 target with det R > 0, built as resnet_nb.hardt_ma.linear.theorem21.theorem21_construction
// builds it (split "best"), and, for det R < 0, an explicit factorisation through a reflection
// (resnet_nb.book.live.hm_theorem21.negative_factorisation) whose first factors cross the singular
// matrices. Matrices are arrays of rows, [[a, b], [c, d]].
(function (root) {
  "use strict";

  const TOL_ANGLE = 1e-12; // rotation_root: a Schur sub-diagonal at most this is a real eigenvalue
  const TOL_NEEDED = 1e-15; // theorem21_construction: gamma or theta at most this needs no factor
  const MAX_REFLECTION = 20; // negativeFactorisation: the most factors spent on diag(-1, 1)

  function eye() {
    return [
      [1, 0],
      [0, 1],
    ];
  }
  function mul(X, Y) {
    return [
      [X[0][0] * Y[0][0] + X[0][1] * Y[1][0], X[0][0] * Y[0][1] + X[0][1] * Y[1][1]],
      [X[1][0] * Y[0][0] + X[1][1] * Y[1][0], X[1][0] * Y[0][1] + X[1][1] * Y[1][1]],
    ];
  }
  function minusEye(X) {
    return [
      [X[0][0] - 1, X[0][1]],
      [X[1][0], X[1][1] - 1],
    ];
  }
  function rot(t) {
    const c = Math.cos(t);
    const s = Math.sin(t);
    return [
      [c, -s],
      [s, c],
    ];
  }
  function det(X) {
    return X[0][0] * X[1][1] - X[0][1] * X[1][0];
  }

  // Singular values of a 2 x 2 matrix, largest first: R = Rot(phi) diag(s1, s2) Rot(theta) with
  // s2 signed (negative when det R < 0); returned as absolute values with the angles.
  function svd2(X) {
    const E = (X[0][0] + X[1][1]) / 2;
    const F = (X[0][0] - X[1][1]) / 2;
    const G = (X[1][0] + X[0][1]) / 2;
    const H = (X[1][0] - X[0][1]) / 2;
    const q = Math.hypot(E, H);
    const r = Math.hypot(F, G);
    const s1 = q + r;
    const dt = det(X);
    const s2 = s1 > 0 ? Math.abs(dt) / s1 : 0; // accurate for a small s2, unlike q - r
    return { s1: s1, s2: s2, a1: Math.atan2(G, F), a2: Math.atan2(H, E) };
  }

  function spectralNorm(X) {
    return svd2(X).s1;
  }

  // The printed bound of Theorem 2.1 (theorem21_bound): "iclr" 2 (sqrt(pi) + sqrt(3 gamma))^2 / l,
  // "summary" (4 pi + 3 gamma) / l.
  function bound(gamma, l, version) {
    if (version === "summary") return (4 * Math.PI + 3 * gamma) / l;
    return (2 * (Math.sqrt(Math.PI) + Math.sqrt(3 * gamma)) ** 2) / l;
  }

  // Python's format(x, ".3g") for the package's messages: live.js, resnetLive.format.g
  const fmtG = (x, digits) => root.resnetLive.format.g(x, digits);


  function product(A) {
    let M = eye();
    for (const Ai of A) {
      M = mul([
        [1 + Ai[0][0], Ai[0][1]],
        [Ai[1][0], 1 + Ai[1][1]],
      ], M);
    }
    return M;
  }

  function checkInputs(R, l) {
    if (!Array.isArray(R) || R.length !== 2 || R.some((row) => !Array.isArray(row) || row.length !== 2)) {
      throw new Error("R must be a 2 x 2 matrix");
    }
    if (R.some((row) => row.some((x) => !Number.isFinite(x)))) throw new Error("R must have finite entries");
    if (!Number.isInteger(l) || l < 1) throw new Error(`l must be an integer >= 1, got ${l}`);
  }

  // theorem21_construction(R, l, split="best"): returns {A, info} or {refusal}.
  function construction(R, l) {
    checkInputs(R, l);
    const dR = det(R);
    if (!(dR > 0)) {
      return {
        refusal:
          `R must have positive determinant, got det R = ${fmtG(dR, 3)}: every factor I + A_i with ` +
          "||A_i|| < 1 has positive determinant, so no product of such factors equals R",
      };
    }
    const sv = svd2(R);
    const s = [sv.s1, sv.s2];
    const gamma = Math.max(Math.abs(Math.log(s[0])), Math.abs(Math.log(s[1])));
    if (l === 1) {
      return {
        A: [minusEye(R)],
        info: { p: 0, q: 0, gamma: gamma, theta_max: NaN, norm_stretch: NaN, norm_rotation: NaN },
      };
    }
    // the polar factor Q = Rot(a2); rotation_root reads its angle from the real Schur form, which
    // for a 2 x 2 rotation is the matrix itself: a sub-diagonal at most 1e-12 means Q = +-I
    const c = Math.cos(sv.a2);
    const sn = Math.sin(sv.a2);
    let theta;
    if (Math.abs(sn) > TOL_ANGLE) theta = Math.atan2(sn, c);
    else theta = c < 0 ? Math.PI : 0;
    const thetaMax = Math.abs(theta);
    const rotNeeded = thetaMax > TOL_NEEDED;
    const symNeeded = gamma > TOL_NEEDED;
    function norms(p) {
      const q = l - p;
      const aSym =
        p > 0 ? Math.max(Math.abs(s[0] ** (1 / p) - 1), Math.abs(s[1] ** (1 / p) - 1)) : symNeeded ? Infinity : 0;
      const aRot = q > 0 ? 2 * Math.sin(thetaMax / (2 * q)) : rotNeeded ? Infinity : 0;
      return [aSym, aRot];
    }
    let p = 0;
    let best = Infinity;
    for (let pp = 0; pp <= l; pp++) {
      const v = Math.max(...norms(pp));
      if (v < best) {
        best = v;
        p = pp;
      }
    }
    const q = l - p;
    const A = [];
    if (p > 0) {
      // P^(1/p) = Rot(theta)^T diag(s^(1/p)) Rot(theta), theta the right singular angle
      const V = rot(-(sv.a2 - sv.a1) / 2); // columns: eigenvectors of P = Q^T R
      const D = [
        [s[0] ** (1 / p), 0],
        [0, s[1] ** (1 / p)],
      ];
      const Vt = [
        [V[0][0], V[1][0]],
        [V[0][1], V[1][1]],
      ];
      const S = minusEye(mul(mul(V, D), Vt));
      for (let i = 0; i < p; i++) A.push(S);
    }
    if (q > 0) {
      const F = minusEye(rot(theta / q));
      for (let i = 0; i < q; i++) A.push(F);
    }
    const [aSym, aRot] = norms(p);
    return {
      A: A,
      info: { p: p, q: q, gamma: gamma, theta_max: thetaMax, norm_stretch: aSym, norm_rotation: aRot },
    };
  }

  // reflection_factorisation(l): diag(-1, 1) in l factors, the first crossing the singular point.
  function reflectionFactorisation(l) {
    if (l === 1) {
      return [
        [
          [-2, 0],
          [0, 0],
        ],
      ];
    }
    let lo = 1e-300;
    let hi = 1.0;
    for (let it = 0; it < 200; it++) {
      const mid = Math.sqrt(lo * hi);
      if (1 + mid < mid ** (-1.0 / (l - 1)) - 1) lo = mid;
      else hi = mid;
    }
    const delta = hi;
    const A = [
      [
        [-1 - delta, 0],
        [0, 0],
      ],
    ];
    for (let i = 1; i < l; i++) {
      A.push([
        [delta ** (-1.0 / (l - 1)) - 1, 0],
        [0, 0],
      ]);
    }
    return A;
  }

  // det R < 0: R = (R D) D with D = diag(-1, 1); D in m factors by reflectionFactorisation (applied
  // first), R D (det > 0) in l - m by construction; m in 1 .. l - 1 the first with the smallest
  // |||A||| (m = l too when R = D); at l = 1 the one factor R - I. Mirrors resnet_nb.book.live.hm_theorem21.negative_factorisation.
  function negativeFactorisation(R, l) {
    checkInputs(R, l);
    if (!(det(R) < 0)) throw new Error("negativeFactorisation needs det R < 0");
    if (l === 1) return { A: [minusEye(R)], m: 1 };
    const RD = [
      [-R[0][0], R[0][1]],
      [-R[1][0], R[1][1]],
    ];
    const isD = RD[0][0] === 1 && RD[0][1] === 0 && RD[1][0] === 0 && RD[1][1] === 1;
    let best = null;
    // at most MAX_REFLECTION factors for D: beyond, 1 - (1 + delta) loses delta to rounding
    for (let m = 1; m < Math.min(isD ? l + 1 : l, MAX_REFLECTION + 1); m++) {
      // m = l only when R is D itself
      const A = reflectionFactorisation(m).concat(m < l ? construction(RD, l - m).A : []);
      const v = Math.max(...A.map(spectralNorm));
      if (best === null || v < best.v) best = { v: v, A: A, m: m };
    }
    return { A: best.A, m: best.m };
  }

  // Everything the explorer draws, for a target R and a depth l.
  function explore(R, l) {
    checkInputs(R, l);
    const sv = svd2(R);
    const dR = det(R);
    const gamma = dR !== 0 ? Math.max(Math.abs(Math.log(sv.s1)), Math.abs(Math.log(sv.s2))) : Infinity;
    const out = { R: R, l: l, det: dR, gamma: gamma };
    out.bound_iclr = bound(gamma, l, "iclr");
    out.bound_summary = bound(gamma, l, "summary");
    out.hypothesis = l >= 3 * gamma;
    const built = construction(R, l);
    let A;
    if (built.refusal) {
      out.refusal = built.refusal;
      if (dR === 0) return out;
      const neg = negativeFactorisation(R, l);
      A = neg.A;
      out.reflection_factors = neg.m;
    } else {
      A = built.A;
      out.info = built.info;
    }
    out.A = A;
    out.norms = A.map(spectralNorm);
    out.norm = Math.max(...out.norms);
    out.factor_dets = A.map((Ai) => det([[1 + Ai[0][0], Ai[0][1]], [Ai[1][0], 1 + Ai[1][1]]]));
    const running = [];
    let M = eye();
    for (const Ai of A) {
      M = mul([[1 + Ai[0][0], Ai[0][1]], [Ai[1][0], 1 + Ai[1][1]]], M);
      running.push(det(M));
    }
    out.running_dets = running;
    const P = product(A);
    out.product_error = Math.max(...[0, 1].flatMap((i) => [0, 1].map((j) => Math.abs(P[i][j] - R[i][j]))));
    return out;
  }

  // det(I + t A) = 1 + t tr A + t^2 det A, on [0, 1]; the first t where it vanishes (null if none).
  function detPathZero(Ai) {
    const tr = Ai[0][0] + Ai[1][1];
    const dA = det(Ai);
    const roots = [];
    if (Math.abs(dA) < 1e-300) {
      if (tr !== 0) roots.push(-1 / tr);
    } else {
      const disc = tr * tr - 4 * dA;
      if (disc >= 0) {
        const sq = Math.sqrt(disc);
        roots.push((-tr - sq) / (2 * dA), (-tr + sq) / (2 * dA));
      }
    }
    const inside = roots.filter((t) => t > 0 && t <= 1).sort((a, b) => a - b);
    return inside.length ? inside[0] : null;
  }

  // A target from the reader's controls: R = Rot(angle) S (diag(1, -1) if det < 0), with S the
  // symmetric stretch by e^(+-stretch) along the direction axis.
  function target(angle, stretch, axis, sign) {
    const Vx = rot(axis);
    const S = mul(mul(Vx, [[Math.exp(stretch), 0], [0, Math.exp(-stretch)]]), [
      [Vx[0][0], Vx[1][0]],
      [Vx[0][1], Vx[1][1]],
    ]);
    let R = mul(rot(angle), S);
    if (sign < 0) R = mul(R, [[1, 0], [0, -1]]);
    return R;
  }


  // --- compute: what the cross-check compares (resnet_nb/book/live/hm_theorem21.py, explore) ---
  function compute(input) {
    let R = input.R;
    if (!R) R = target((input.angle * Math.PI) / 180, input.stretch, (input.axis * Math.PI) / 180, Number(input.sign));
    const o = explore(R, Number(input.l));
    const out = {
      R: o.R,
      l: o.l,
      det: o.det,
      gamma: o.gamma,
      bound_iclr: o.bound_iclr,
      bound_summary: o.bound_summary,
      hypothesis: o.hypothesis,
    };
    if (o.refusal) {
      out.refusal = o.refusal;
      out.reflection_factors = o.reflection_factors;
    } else {
      for (const k of ["p", "q", "gamma", "theta_max", "norm_stretch", "norm_rotation"]) {
        out[k] = Number.isNaN(o.info[k]) ? null : o.info[k];
      }
    }
    out.A = o.A;
    out.norms = o.norms;
    out.norm = o.norm;
    out.factor_dets = o.factor_dets;
    out.running_dets = o.running_dets;
    out.product_error = o.product_error;
    return out;
  }

  // --- the figure ---------------------------------------------------------------------------
  const COL = {
    factor: "#1f77b4",
    iclr: "#d62728",
    summary: "#9467bd",
    one: "#555",
    det: "#2ca02c",
    cross: "#ff7f0e",
    search: "#8c564b",
  };

  function fmt(x, d) {
    if (x === null || x === undefined || Number.isNaN(x)) return "–";
    if (!Number.isFinite(x)) return x > 0 ? "∞" : "−∞";
    const a = Math.abs(x);
    if (a < 5e-13) return (0).toFixed(d === undefined ? 3 : d); // a rounding residue, e.g. sin(pi)
    if (a !== 0 && (a < 1e-3 || a >= 1e5)) return x.toExponential(2).replace("-", "−");
    return x.toFixed(d === undefined ? 3 : d).replace("-", "−");
  }
  function matrixText(R) {
    return "[[" + fmt(R[0][0]) + ", " + fmt(R[0][1]) + "], [" + fmt(R[1][0]) + ", " + fmt(R[1][1]) + "]]";
  }
  function el(tag, cls, text) {
    const e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined) e.textContent = text;
    return e;
  }

  function mount(root, api) {
    const live = window.resnetLive;
    const fig = api.figure;
    const left = el("figure");
    const right = el("figure");
    const capL = el("figcaption");
    const capR = el("figcaption");
    const text = el("div", "rn-live-hm21-text");
    text.style.flexBasis = "100%";
    text.style.fontSize = "0.9em";
    fig.appendChild(text);
    fig.appendChild(left);
    fig.appendChild(right);
    const paths = el("figure");
    const capP = el("figcaption");
    fig.appendChild(paths);
    const search = (api.data && api.data.search) || {};

    function draw(state) {
      const o = compute(state);
      const l = o.l;
      const ks = o.norms.map((_, i) => i + 1);
      const W = Math.floor(Math.min(380, Math.max(260, fig.clientWidth ? fig.clientWidth / 2 - 12 : 360)));
      left.style.width = right.style.width = W + "px"; // the captions wrap under their panel
      paths.style.width = W + "px";
      const span = [0.5, l + 0.5];
      const found = o.refusal && Number(state.stretch) === 0 ? search[String(l)] : null;
      const normSeries = [
        { x: ks, y: o.norms, label: "‖A_i‖", color: COL.factor, points: true },
        { x: span, y: [o.bound_iclr, o.bound_iclr], label: "ICLR bound", color: COL.iclr },
        { x: span, y: [o.bound_summary, o.bound_summary], label: "summary bound", color: COL.summary },
        { x: span, y: [1, 1], label: "1", color: COL.one },
      ];
      if (found) normSeries.push({ x: ks, y: found.norms, label: "package's search", color: COL.search, points: true });
      live.plot.lines(left, {
        series: normSeries,
        xlabel: "factor i (applied first: 1)",
        ylabel: "norm",
        ymin: 0,
        width: W,
        height: 240,
        xmin: 0.5,
        xmax: l + 0.5,
      });
      const dk = [0].concat(ks);
      const dets = [1].concat(o.running_dets);
      live.plot.lines(right, {
        series: [
          { x: dk, y: dets, label: "det of the product", color: COL.det, points: true },
          { x: [0, l], y: [0, 0], label: "0", color: COL.one },
        ],
        xlabel: "factors multiplied k",
        ylabel: "det((I+A_k)…(I+A_1))",
        width: W,
        height: 240,
      });
      // every factor's path t -> det(I + t A_i) = 1 + t tr A_i + t^2 det A_i on [0, 1]
      const ts = Array.from({ length: 41 }, (_, i) => i / 40);
      const crossing = o.A.map((Ai) => detPathZero(Ai) !== null);
      const pathSeries = [];
      const seen = [false, false];
      o.A.forEach((Ai, i) => {
        const tr = Ai[0][0] + Ai[1][1];
        const dA = Ai[0][0] * Ai[1][1] - Ai[0][1] * Ai[1][0];
        const c = crossing[i] ? 1 : 0;
        pathSeries.push({
          x: ts,
          y: ts.map((t) => 1 + t * tr + t * t * dA),
          color: c ? COL.cross : COL.factor,
          label: seen[c] ? undefined : c ? "a factor that crosses 0" : "a factor (stays > 0)",
        });
        seen[c] = true;
      });
      pathSeries.push({ x: [0, 1], y: [0, 0], color: COL.one });
      live.plot.lines(paths, {
        series: pathSeries,
        xlabel: "t",
        ylabel: "det(I + t A_i)",
        width: W,
        height: 240,
      });
      left.appendChild(capL);
      right.appendChild(capR);
      paths.appendChild(capP);
      const nCross = crossing.filter(Boolean).length;
      capP.textContent =
        "Each factor's determinant along t ↦ I + tA_i: " +
        (nCross
          ? nCross + " crosses zero at some t ≤ 1, so −1/t is an eigenvalue of that A_i and ‖A_i‖ ≥ 1/t ≥ 1."
          : "none crosses zero, as none can when ‖A_i‖ < 1.");
      capL.textContent =
        "Every factor's norm ‖A_i‖ (dots) against the printed bounds at γ = " + fmt(o.gamma) + ", ℓ = " + l +
        " (lines) and against 1.";
      capR.textContent =
        "The determinant of the running product: it starts at 1 and ends at det R = " + fmt(o.det) +
        "; it can change sign only at a factor with det(I + A_i) ≤ 0.";
      text.textContent = "";
      const p1 = el("p");
      p1.textContent =
        "R = " + matrixText(o.R) + ", det R = " + fmt(o.det) + ", γ = " + fmt(o.gamma) + ". " +
        "Depth ℓ = " + l + (o.hypothesis ? " ≥ 3γ (the theorem's hypothesis holds)." : " < 3γ: the theorem promises nothing here.");
      text.appendChild(p1);
      const p2 = el("p");
      if (!o.refusal) {
        p2.textContent =
          "The construction spends p = " + o.p + " factors on the stretch P^(1/p) and q = " + o.q +
          " on the rotation Q^(1/q) (R = QP). Largest factor |||A||| = " + fmt(o.norm, 4) + ", ICLR bound " +
          fmt(o.bound_iclr, 4) + " (ratio " + fmt(o.norm / o.bound_iclr, 2) + "), summary bound " +
          fmt(o.bound_summary, 4) + ". The product equals R up to " + o.product_error.toExponential(1).replace("-", "−") + ".";
      } else {
        const worst = Math.max(0, o.factor_dets.findIndex((d) => d <= 0)); // the factor that crosses
        const t = detPathZero(o.A[worst]);
        p2.textContent =
          "det R < 0, and the package refuses: “" + o.refusal + "”. Why: along t ↦ I + tA the determinant " +
          "starts at 1; if ‖A‖ < 1 it never vanishes (every I + tA is invertible), so det(I + A) > 0. A product " +
          "of such factors has positive determinant, so some factor has ‖A_i‖ ≥ 1, at every depth, while the " +
          "printed bound tends to 0. Shown: an explicit factorisation, R = (RD)D with D = diag(−1, 1) in " +
          o.reflection_factors + " factor(s). Its factor " + (worst + 1) + " has det(I + A) = " +
          fmt(o.factor_dets[worst]) + (t !== null ? "; I + tA is singular at t = " + fmt(t, 4) + ", so ‖A‖ ≥ 1/t = " + fmt(1 / t, 4) : "") +
          "; |||A||| = " + fmt(o.norm, 4) + ".";
        if (found) {
          const p3 = el("p");
          p3.textContent =
            "R is a reflection (stretch 0), orthogonally similar to diag(−1, 1). The package's numerical search " +
            "over exact factorisations of diag(−1, 1) at ℓ = " + l + " (Adam, 3 restarts) found |||A||| = " +
            fmt(found.norm, 4) + ", with factor determinants from " + fmt(Math.min(...found.factor_dets)) +
            " to " + fmt(Math.max(...found.factor_dets)) + ": nothing below 1.";
          text.appendChild(p2);
          text.appendChild(p3);
          return;
        }
      }
      text.appendChild(p2);
    }
    return { draw: draw };
  }

  const deg = (v) => v + "°";
  const spec = {
    compute: compute,
    data: true,
    controls: [
      { key: "angle", label: "rotation angle", type: "range", min: -180, max: 180, step: 1, value: 150, format: deg },
      { key: "stretch", label: "stretch (singular values e^±s)", type: "range", min: 0, max: 3, step: 0.05, value: 0.5 },
      { key: "axis", label: "stretch axis", type: "range", min: 0, max: 180, step: 5, value: 30, format: deg },
      {
        key: "sign",
        label: "sign of det R",
        type: "select",
        options: [
          [1, "det R > 0"],
          [-1, "det R < 0 (times a reflection)"],
        ],
        value: 1,
      },
      { key: "l", label: "depth ℓ", type: "range", min: 1, max: 64, step: 1, value: 12 },
    ],
    mount: mount,
  };
  const api = { construction, reflectionFactorisation, negativeFactorisation, explore, detPathZero, target, bound, compute };
  if (typeof module !== "undefined" && module.exports) module.exports = api;
  else if (root.resnetLive) root.resnetLive.register("hm-theorem21", spec);
})(typeof globalThis !== "undefined" ? globalThis : this);
