// Hardt & Ma, Theorem 3.2, computed in the page: the construction of
// resnet_nb.hardt_ma.relu.theorem32.theorem32_construction (selection "greedy", safety 1/2) on
// labelled points of the plane (d = 2, so the width is k = min(2, ceil(6 ln n)) = 2). The random
// numbers the package draws (numpy's default_rng(seed).standard_normal) come from a table exported
// at build time: normals[seed] is the start of that stream. Points are columns: H[i] is row i of the
// (k, n) array, so H[0][j], H[1][j] are the coordinates of point j.
(function (root) {
  "use strict";

  const K = 2;
  const SURROGATE_TOL = 1e-6; // surrogate_vectors: margins at most 1e-6 radius^2 mean coincidence

  function colSq(H, j) {
    return H[0][j] * H[0][j] + H[1][j] * H[1][j];
  }
  function dot(H, i, G, j) {
    return H[0][i] * G[0][j] + H[1][i] * G[1][j];
  }
  function ncols(H) {
    return H[0].length;
  }

  // separation(X) <= 0, computed as the package computes it (Gram formula).
  function separationSq(H) {
    const n = ncols(H);
    let best = Infinity;
    for (let i = 0; i < n; i++) {
      for (let j = 0; j < n; j++) {
        if (i !== j) best = Math.min(best, colSq(H, i) + colSq(H, j) - 2 * dot(H, i, H, j));
      }
    }
    return best;
  }

  // margins(H, idx): min over j != i of ||h_i||^2 - <h_i, h_j>, for each i in idx.
  function margins(H, idx) {
    const n = ncols(H);
    return idx.map((i) => {
      const sq = colSq(H, i);
      let m = Infinity;
      for (let j = 0; j < n; j++) if (j !== i) m = Math.min(m, sq - dot(H, i, H, j));
      return m;
    });
  }

  // h + V relu(U h + b) on every column.
  function reluBlock(H, U, V, b) {
    const n = ncols(H);
    const rows = U.length;
    const out = H.map((row) => row.slice());
    for (let j = 0; j < n; j++) {
      for (let a = 0; a < rows; a++) {
        let pre = b[a];
        for (let c = 0; c < H.length; c++) pre += U[a][c] * H[c][j];
        const act = pre > 0 ? pre : 0;
        if (act !== 0) for (let c = 0; c < out.length; c++) out[c][j] += V[c][a] * act;
      }
    }
    return out;
  }

  function fmtG(x, digits) {
    if (x === 0) return "0";
    if (!isFinite(x)) return isNaN(x) ? "nan" : x > 0 ? "inf" : "-inf";
    const e = Math.floor(Math.log10(Math.abs(Number(x.toPrecision(digits)))));
    if (e < -4 || e >= digits) {
      let [m, ex] = x.toExponential(digits - 1).split("e");
      if (m.indexOf(".") >= 0) m = m.replace(/0+$/, "").replace(/\.$/, "");
      const n = Number(ex);
      return m + "e" + (n < 0 ? "-" : "+") + String(Math.abs(n)).padStart(2, "0");
    }
    let s = x.toFixed(Math.max(0, digits - 1 - e));
    if (s.indexOf(".") >= 0) s = s.replace(/0+$/, "").replace(/\.$/, "");
    return s;
  }

  // lemma_block(H, idx, targets): {U, V, b, margins, moved_error, fixed_error} or {refusal}.
  function lemmaBlock(H, idx, T, safety) {
    const n = ncols(H);
    const mg = margins(H, idx);
    let bad = -1;
    for (let a = 0; a < mg.length; a++) if (mg[a] <= 0 && (bad < 0 || mg[a] < mg[bad])) bad = a;
    if (bad >= 0) {
      return {
        refusal:
          `point ${idx[bad]} has margin ${fmtG(mg[bad], 3)} <= 0: some other point x has ` +
          "<z, x> >= ||z||^2, so no hidden unit relu(<z, x> - c) fires at z alone",
      };
    }
    const U = [
      [0, 0],
      [0, 0],
    ];
    const V = [
      [0, 0],
      [0, 0],
    ];
    const b = [-1, -1];
    idx.forEach((i, a) => {
      const sq = colSq(H, i);
      const delta = safety * (isFinite(mg[a]) ? mg[a] : Math.max(sq, 1));
      U[a][0] = H[0][i];
      U[a][1] = H[1][i];
      b[a] = -(sq - delta);
      V[0][a] = (T[0][a] - H[0][i]) / delta;
      V[1][a] = (T[1][a] - H[1][i]) / delta;
    });
    const out = reluBlock(H, U, V, b);
    let moved = 0;
    let fixed = 0;
    for (let j = 0; j < n; j++) {
      const a = idx.indexOf(j);
      for (let c = 0; c < K; c++) {
        if (a >= 0) moved = Math.max(moved, Math.abs(out[c][j] - T[c][a]));
        else fixed = Math.max(fixed, Math.abs(out[c][j] - H[c][j]));
      }
    }
    return { U: U, V: V, b: b, margins: mg, moved_error: moved, fixed_error: fixed, out: out };
  }

  function refuse(reason, extra) {
    return Object.assign({ refusal: reason }, extra || {});
  }

  // theorem32_construction(X, labels, seed=seed), X as (2, n); normals: {seed: [numbers]}.
  function construction(X, labels, seed, normals, opts) {
    const safety = (opts && opts.safety) || 0.5;
    const n = X.length === 2 ? X[0].length : 0;
    if (n === 0) {
      return refuse(`X must be a 2-d array (dimension, points) with at least one point, got shape (2, 0)`);
    }
    if (!labels.every((y) => Number.isInteger(y) && y >= 0) || labels.length !== n) {
      return refuse(`labels must be ${n} non-negative integers`);
    }
    const r = Math.max(...labels) + 1;
    const g0 = normals[seed];
    const g1 = normals[seed + 1];
    if (!g0 || !g1 || g0.length < K * 2 || g1.length < K * r) {
      return refuse(`no random numbers exported for seed ${seed} and r = ${r}`);
    }
    const sk = Math.sqrt(K);
    const A0 = [
      [g0[0] / sk, g0[1] / sk],
      [g0[2] / sk, g0[3] / sk],
    ];
    let H = [0, 1].map((c) => X[0].map((_, j) => A0[c][0] * X[0][j] + A0[c][1] * X[1][j]));
    const base = { k: K, r: r, n: n, A0: A0, H0: H };
    if (n > 1 && !(separationSq(H) > 0)) {
      if (!(separationSq(X) > 0)) return refuse("X has two identical points: they cannot be given different outputs", base);
      return refuse("the projection merged two points; use a larger k or another seed", base);
    }
    let minNorm = Infinity;
    for (let j = 0; j < n; j++) minNorm = Math.min(minNorm, Math.sqrt(colSq(H, j)));
    const radius = 0.5 * minNorm;
    base.radius = radius;
    if (!(radius > 0)) return refuse(`radius must lie in (0.0, inf], got ${radius === 0 ? "0.0" : radius}`, base);
    // surrogate_vectors(r, k, radius, seed + 1): Q = standard_normal((k, r)), columns scaled to radius
    const Q = [0, 1].map((c) => Array.from({ length: r }, (_, j) => g1[c * r + j]));
    for (let j = 0; j < r; j++) {
      const nq = Math.hypot(Q[0][j], Q[1][j]);
      Q[0][j] = (radius * Q[0][j]) / nq;
      Q[1][j] = (radius * Q[1][j]) / nq;
    }
    base.Q = Q;
    const qm = margins(
      Q,
      Q[0].map((_, j) => j),
    );
    if (Math.min(...qm) <= SURROGATE_TOL * radius * radius) {
      return refuse(`surrogates nearly coincide for r = ${r}, k = ${K}; use a larger k or another seed`, base);
    }
    const states = [H];
    const blocks = [];
    let unmoved = labels.map((_, j) => j);
    let movedError = 0;
    let fixedError = 0;
    while (unmoved.length) {
      // the greedy order: the k unmoved points of largest margin (ties: the lower index), if positive
      const mg = margins(H, unmoved);
      const order = unmoved.map((_, a) => a).sort((a, b) => mg[b] - mg[a] || a - b);
      const idx = order
        .slice(0, K)
        .filter((a) => mg[a] > 0)
        .map((a) => unmoved[a]);
      if (!idx.length) return refuse("no remaining point has a positive margin", Object.assign(base, { states, blocks }));
      const T = [0, 1].map((c) => idx.map((i) => Q[c][labels[i]]));
      const blk = lemmaBlock(H, idx, T, safety);
      if (blk.refusal) return refuse(blk.refusal, Object.assign(base, { states, blocks }));
      H = blk.out;
      states.push(H);
      blocks.push({ U: blk.U, V: blk.V, b: blk.b, idx: idx, margins: blk.margins });
      movedError = Math.max(movedError, blk.moved_error);
      fixedError = Math.max(fixedError, blk.fixed_error);
      unmoved = unmoved.filter((j) => idx.indexOf(j) < 0);
    }
    // the last block: q_c -> e_c
    const dq = r === 1 ? (radius * radius) / 2 : safety * Math.min(...qm);
    const last = {
      U: Q[0].map((_, c) => [Q[0][c], Q[1][c]]),
      V: Array.from({ length: r }, (_, i) => Array.from({ length: r }, (_, j) => (i === j ? 1 / dq : 0))),
      b: Q[0].map((_, c) => -(Q[0][c] * Q[0][c] + Q[1][c] * Q[1][c] - dq)),
    };
    const Y = Array.from({ length: r }, () => new Array(n).fill(0));
    for (let j = 0; j < n; j++) {
      const act = last.b.map((bc, c) => Math.max(last.U[c][0] * H[0][j] + last.U[c][1] * H[1][j] + bc, 0));
      for (let i = 0; i < r; i++) Y[i][j] = last.V[i][i] * act[i];
    }
    const residual = blocks.length * (2 * K * K + K);
    const lastCount = r * K + r * r + r;
    return Object.assign(base, {
      states: states,
      blocks: blocks,
      last: last,
      outputs: Y,
      moved_error: movedError,
      fixed_error: fixedError,
      min_margin: Math.min(...blocks.map((bl) => Math.min(...bl.margins))),
      params: {
        residual: residual,
        last: lastCount,
        trainable: residual + lastCount,
        projection: K * 2,
        total: residual + lastCount + K * 2,
      },
    });
  }

  const api = { construction, margins, reluBlock, lemmaBlock, fmtG };
  if (typeof module !== "undefined" && module.exports) module.exports = api;
  else root.hmTheorem32 = api;
})(typeof globalThis !== "undefined" ? globalThis : this);
