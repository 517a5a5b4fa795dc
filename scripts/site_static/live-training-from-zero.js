/*
 * live-training-from-zero.js: the live explorer "training-from-zero" of book/theorem1_dynamics.ipynb.
 *
 * Full-batch gradient descent on a small linear network (plain with a Xavier or orthogonal start,
 * or an n-shortcut network, n = 1, 2, 3, from the zero start or eps times a Xavier draw), computed
 * in the page: the loss at every step and the sharpness (the largest eigenvalue of the exact
 * Hessian) against the stability limit 2/eta.
 *
 * The mathematics (the same as resnet_nb.core.train and resnet_nb.core.hessians):
 *   weights W[r][l] (unit r, matrix l), unit map T_r = I + W_{r,n} ... W_{r,1} (plain: no I),
 *   end-to-end E = T_R ... T_1, loss L = 1/2 tr(E Sxx E^T) - tr(E Syx^T) + 1/2 tr Syy,
 *   G = dL/dE = E Sxx - Syx,
 *   dL/dT_r = (T_R ... T_{r+1})^T G (T_{r-1} ... T_1)^T,
 *   dL/dW_{r,l} = (W_{r,n} ... W_{r,l+1})^T dL/dT_r (W_{r,l-1} ... W_{r,1})^T   (Eq. 7 of Li et al.).
 * The Hessian-vector product H v is the derivative of this gradient along v, written out by the
 * product rule (forward mode over the analytic gradient: exact, no finite differences). The
 * sharpness is the top eigenvalue from Lanczos with full reorthogonalisation, stopped when the
 * Ritz pair's residual is below 1e-11 times the spectrum's scale (the eigenvalue is then within
 * that residual of an eigenvalue of H), or when the Krylov space is exhausted; the small
 * tridiagonal eigenproblems are solved by bisection and inverse iteration (hand-written, O(k)).
 *
 * Random starts in the page come from a seeded generator of this file (mulberry32 + Box-Muller):
 * the same distributions as resnet_nb.core.init (Xavier N(0, 1/d), Haar orthogonal by QR with a
 * positive diagonal), not torch's stream. The browser test passes the package's own starts.
 *
 * Drawing: a control move trains the whole run (at most 1000 steps) and draws the loss at every
 * step with the sharpness at the samples computed within 35 ms (coarse to fine over the run); the
 * other samples (60 per run at most) follow in slices of 30 ms, each redrawn as it arrives.
 */
(function () {
  "use strict";
  var NAME = "training-from-zero";
  var BLOWUP = 1e12;  // resnet_nb.core.train.gradient_descent's default: a run above it has diverged

  // --- small dense matrices: row-major d x d blocks inside Float64Arrays, addressed by offset ------
  /* C[c..] (+)= A[a..] B[b..]; mmTN: A^T B; mmNT: A B^T. `acc` adds to C instead of overwriting. */
  function mm(A, a, B, b, C, c, d, acc) {
    for (var i = 0; i < d; i++) {
      for (var j = 0; j < d; j++) {
        var s = 0;
        for (var k = 0; k < d; k++) { s += A[a + i * d + k] * B[b + k * d + j]; }
        C[c + i * d + j] = acc ? C[c + i * d + j] + s : s;
      }
    }
  }
  function mmTN(A, a, B, b, C, c, d, acc) {
    for (var i = 0; i < d; i++) {
      for (var j = 0; j < d; j++) {
        var s = 0;
        for (var k = 0; k < d; k++) { s += A[a + k * d + i] * B[b + k * d + j]; }
        C[c + i * d + j] = acc ? C[c + i * d + j] + s : s;
      }
    }
  }
  function mmNT(A, a, B, b, C, c, d, acc) {
    for (var i = 0; i < d; i++) {
      for (var j = 0; j < d; j++) {
        var s = 0;
        for (var k = 0; k < d; k++) { s += A[a + i * d + k] * B[b + j * d + k]; }
        C[c + i * d + j] = acc ? C[c + i * d + j] + s : s;
      }
    }
  }
  function setEye(C, c, d) {
    for (var i = 0; i < d * d; i++) { C[c + i] = 0; }
    for (var j = 0; j < d; j++) { C[c + j * d + j] = 1; }
  }
  function setZero(C, c, d) { for (var i = 0; i < d * d; i++) { C[c + i] = 0; } }

  // --- the network ------------------------------------------------------------------------------
  /* net = {d, n, R, shortcut}; weights W: a Float64Array of R*n*d*d, matrix (r, l) at offset
     (r*n + l)*d*d, row-major; stats = {Sxx, Syx (Float64Array d*d), trSyy}. A workspace holds every
     partial product, allocated once per network: prepare() fills it at W, hvp() reads it. */
  function workspace(net) {
    var s = net.d * net.d, M = net.R * net.n * s, U = net.R * s, f = function (k) { return new Float64Array(k); };
    return {net: net, pre: f(M), post: f(M), T: f(U), before: f(U), after: f(U), ES: f(s), G: f(s), AG: f(U),
            D: f(U), QD: f(M), grad: f(M), tmp: f(s), tmp2: f(s), I: f(s),
            dpre: f(M), dpost: f(M), dT: f(U), dbefore: f(U), dafter: f(U), dE: f(s), dG: f(s), dD: f(s)};
  }

  /* The loss and gradient at W (Eq. 7), keeping the partial products in ws for hvp(). */
  function prepare(ws, W, stats) {
    var net = ws.net, d = net.d, n = net.n, R = net.R, s = d * d;
    var pre = ws.pre, post = ws.post, T = ws.T, before = ws.before, after = ws.after;
    setEye(ws.I, 0, d);
    for (var r = 0; r < R; r++) {
      var u = r * n * s;  // offset of the unit's first matrix
      setEye(pre, u, d);  // pre[l] = W_{l-1} ... W_0
      for (var l = 1; l < n; l++) { mm(W, u + (l - 1) * s, pre, u + (l - 1) * s, pre, u + l * s, d, false); }
      setEye(post, u + (n - 1) * s, d);  // post[l] = W_{n-1} ... W_{l+1}
      for (var l2 = n - 2; l2 >= 0; l2--) { mm(post, u + (l2 + 1) * s, W, u + (l2 + 1) * s, post, u + l2 * s, d, false); }
      mm(W, u + (n - 1) * s, pre, u + (n - 1) * s, T, r * s, d, false);
      if (net.shortcut) { for (var i = 0; i < d; i++) { T[r * s + i * d + i] += 1; } }
    }
    setEye(before, 0, d);  // before[r] = T_{r-1} ... T_0
    for (var r2 = 1; r2 < R; r2++) { mm(T, (r2 - 1) * s, before, (r2 - 1) * s, before, r2 * s, d, false); }
    var E = ws.tmp2;
    mm(T, (R - 1) * s, before, (R - 1) * s, E, 0, d, false);
    setEye(after, (R - 1) * s, d);  // after[r] = T_{R-1} ... T_{r+1}
    for (var r3 = R - 2; r3 >= 0; r3--) { mm(after, (r3 + 1) * s, T, (r3 + 1) * s, after, r3 * s, d, false); }
    var ES = ws.ES, G = ws.G, loss = 0.5 * stats.trSyy;
    mm(E, 0, stats.Sxx, 0, ES, 0, d, false);
    for (var k = 0; k < s; k++) {
      G[k] = ES[k] - stats.Syx[k];
      loss += 0.5 * ES[k] * E[k] - E[k] * stats.Syx[k];
    }
    for (var r4 = 0; r4 < R; r4++) {
      mmTN(after, r4 * s, G, 0, ws.AG, r4 * s, d, false);        // after^T G
      mmNT(ws.AG, r4 * s, before, r4 * s, ws.D, r4 * s, d, false);  // D_r = dL/dT_r = after^T G before^T
      for (var l3 = 0; l3 < n; l3++) {
        var o = (r4 * n + l3) * s;
        mmTN(post, o, ws.D, r4 * s, ws.QD, o, d, false);           // post^T D
        mmNT(ws.QD, o, pre, o, ws.grad, o, d, false);              // dL/dW = post^T D pre^T
      }
    }
    ws.W = W;
    ws.stats = stats;
    ws.loss = loss;
    return ws;
  }

  /* H v at the point of the last prepare(ws, W): the derivative of prepare's gradient along v, by the
     product rule on every product (forward mode over the analytic gradient: exact). */
  function hvp(ws, v, out) {
    var net = ws.net, d = net.d, n = net.n, R = net.R, s = d * d, W = ws.W;
    var dpre = ws.dpre, dpost = ws.dpost, dT = ws.dT, dbefore = ws.dbefore, dafter = ws.dafter;
    out = out || new Float64Array(W.length);
    for (var r = 0; r < R; r++) {
      var u = r * n * s;
      setZero(dpre, u, d);
      for (var l = 1; l < n; l++) {
        mm(v, u + (l - 1) * s, ws.pre, u + (l - 1) * s, dpre, u + l * s, d, false);
        mm(W, u + (l - 1) * s, dpre, u + (l - 1) * s, dpre, u + l * s, d, true);
      }
      setZero(dpost, u + (n - 1) * s, d);
      for (var l2 = n - 2; l2 >= 0; l2--) {
        mm(dpost, u + (l2 + 1) * s, W, u + (l2 + 1) * s, dpost, u + l2 * s, d, false);
        mm(ws.post, u + (l2 + 1) * s, v, u + (l2 + 1) * s, dpost, u + l2 * s, d, true);
      }
      mm(v, u + (n - 1) * s, ws.pre, u + (n - 1) * s, dT, r * s, d, false);
      mm(W, u + (n - 1) * s, dpre, u + (n - 1) * s, dT, r * s, d, true);
    }
    setZero(dbefore, 0, d);
    for (var r2 = 1; r2 < R; r2++) {
      mm(dT, (r2 - 1) * s, ws.before, (r2 - 1) * s, dbefore, r2 * s, d, false);
      mm(ws.T, (r2 - 1) * s, dbefore, (r2 - 1) * s, dbefore, r2 * s, d, true);
    }
    var dE = ws.dE;
    mm(dT, (R - 1) * s, ws.before, (R - 1) * s, dE, 0, d, false);
    mm(ws.T, (R - 1) * s, dbefore, (R - 1) * s, dE, 0, d, true);
    setZero(dafter, (R - 1) * s, d);
    for (var r3 = R - 2; r3 >= 0; r3--) {
      mm(dafter, (r3 + 1) * s, ws.T, (r3 + 1) * s, dafter, r3 * s, d, false);
      mm(ws.after, (r3 + 1) * s, dT, (r3 + 1) * s, dafter, r3 * s, d, true);
    }
    mm(dE, 0, ws.stats.Sxx, 0, ws.dG, 0, d, false);
    var t1 = ws.tmp, dD = ws.dD;
    for (var r4 = 0; r4 < R; r4++) {
      // dD = d(after^T G before^T) = (dafter^T G + after^T dG) before^T + (after^T G) dbefore^T
      mmTN(dafter, r4 * s, ws.G, 0, t1, 0, d, false);
      mmTN(ws.after, r4 * s, ws.dG, 0, t1, 0, d, true);
      mmNT(t1, 0, ws.before, r4 * s, dD, 0, d, false);
      mmNT(ws.AG, r4 * s, dbefore, r4 * s, dD, 0, d, true);
      for (var l3 = 0; l3 < n; l3++) {
        var o = (r4 * n + l3) * s;
        // d(post^T D pre^T) = (dpost^T D + post^T dD) pre^T + (post^T D) dpre^T
        mmTN(dpost, o, ws.D, r4 * s, t1, 0, d, false);
        mmTN(ws.post, o, dD, 0, t1, 0, d, true);
        mmNT(t1, 0, ws.pre, o, out, o, d, false);
        mmNT(ws.QD, o, dpre, o, out, o, d, true);
      }
    }
    return out;
  }
  // --- Lanczos for the top eigenvalue -----------------------------------------------------------
  function dot(a, b) { var s = 0; for (var i = 0; i < a.length; i++) { s += a[i] * b[i]; } return s; }

  /* The top eigenpair of the symmetric tridiagonal matrix T (diagonal alpha, off-diagonal beta,
     k = alpha.length): theta by bisection on Sturm counts (to rounding), its eigenvector x by two
     steps of inverse iteration (Gaussian elimination with partial pivoting on T - theta I), and
     |T x - theta x|. Hand-written: ml-matrix solves dense problems only, at O(k^3) a call. */
  function tridiagTop(alpha, beta) {
    var k = alpha.length, lo = Infinity, hi = -Infinity;
    for (var i = 0; i < k; i++) {  // Gershgorin bounds
      var rad = (i > 0 ? Math.abs(beta[i - 1]) : 0) + (i < k - 1 ? Math.abs(beta[i]) : 0);
      lo = Math.min(lo, alpha[i] - rad); hi = Math.max(hi, alpha[i] + rad);
    }
    var span = Math.max(hi - lo, Math.abs(hi), 1e-300);
    var above = function (x) {  // number of eigenvalues greater than x (Sturm sequence)
      var q = 1, count = 0;
      for (var j = 0; j < k; j++) {
        q = alpha[j] - x - (j > 0 ? beta[j - 1] * beta[j - 1] / q : 0);
        if (q === 0) { q = 1e-300 * span; }
        if (q > 0) { count++; }
      }
      return count;
    };
    while (hi - lo > 4e-16 * span) {  // the top eigenvalue lies in (lo, hi]
      var mid = 0.5 * (lo + hi);
      if (mid <= lo || mid >= hi) { break; }
      if (above(mid) >= 1) { lo = mid; } else { hi = mid; }
    }
    var theta = hi, x = new Float64Array(k).fill(1);
    for (var it = 0; it < 2; it++) { x = tridiagSolve(alpha, beta, theta + 1e-14 * span, x); }
    var nx = Math.sqrt(dot(x, x)), res = 0;
    for (var j2 = 0; j2 < k; j2++) { x[j2] /= nx; }
    for (var j3 = 0; j3 < k; j3++) {
      var tx = alpha[j3] * x[j3] + (j3 > 0 ? beta[j3 - 1] * x[j3 - 1] : 0) + (j3 < k - 1 ? beta[j3] * x[j3 + 1] : 0);
      res += (tx - theta * x[j3]) * (tx - theta * x[j3]);
    }
    return {theta: theta, last: x[k - 1], res: Math.sqrt(res), big: Math.max(Math.abs(theta), span)};
  }
  /* Solve (T - sigma I) y = b for tridiagonal T by Gaussian elimination with partial pivoting. */
  function tridiagSolve(alpha, beta, sigma, b) {
    var k = alpha.length, tiny = 1e-300;
    var d = new Float64Array(k), u = new Float64Array(k), u2 = new Float64Array(k), l = new Float64Array(k);
    var piv = new Uint8Array(k), y = Float64Array.from(b);
    for (var i = 0; i < k; i++) { d[i] = alpha[i] - sigma; u[i] = i < k - 1 ? beta[i] : 0; }
    var sub = Float64Array.from(beta);
    for (var j = 0; j < k - 1; j++) {
      if (Math.abs(sub[j]) > Math.abs(d[j])) {  // swap rows j and j + 1
        piv[j] = 1;
        var t0 = d[j]; d[j] = sub[j]; sub[j] = t0;
        var t1 = u[j]; u[j] = d[j + 1]; d[j + 1] = t1;
        u2[j] = u[j + 1]; u[j + 1] = 0;
        var t2 = y[j]; y[j] = y[j + 1]; y[j + 1] = t2;
        // row j is now [d[j], u[j], u2[j]], row j+1 is [sub[j], d[j+1], u[j+1]] (sub[j] the old d[j])
      }
      if (d[j] === 0) { d[j] = tiny; }
      l[j] = sub[j] / d[j];
      d[j + 1] -= l[j] * u[j];
      if (piv[j]) { u[j + 1] -= l[j] * u2[j]; }
      y[j + 1] -= l[j] * y[j];
    }
    if (d[k - 1] === 0) { d[k - 1] = tiny; }
    var x = new Float64Array(k);
    for (var i2 = k - 1; i2 >= 0; i2--) {
      var v = y[i2];
      if (i2 + 1 < k) { v -= u[i2] * x[i2 + 1]; }
      if (i2 + 2 < k) { v -= u2[i2] * x[i2 + 2]; }
      x[i2] = v / d[i2];
    }
    return x;
  }

  var RTOL = 1e-11, QBUF = {P: 0, Q: null};
  /* The largest eigenvalue of the symmetric P x P operator `apply` (v -> H v, written into `out`).
     Lanczos from a fixed pseudo-random start with full reorthogonalisation (a second pass when the
     first removed more than half of the vector's norm); the Ritz pair (theta, Q x) is accepted when
     its residual sqrt(|T x - theta x|^2 + (beta_k x_k)^2) is at most 1e-11 times the spectrum's scale
     (theta is then within that distance of an eigenvalue of H), or when the Krylov space is exhausted
     (beta ~ 0, or k = P: then the Ritz values are eigenvalues). */
  function topEigenvalue(apply, P) {
    if (QBUF.P !== P) { QBUF = {P: P, Q: new Float64Array(P * P)}; }
    var rng = mulberry32(7919), Q = QBUF.Q, alpha = [], beta = [];
    var w = new Float64Array(P), q = Q.subarray(0, P), nq = 0;
    for (var i = 0; i < P; i++) { q[i] = rng() - 0.5; nq += q[i] * q[i]; }
    nq = Math.sqrt(nq);
    for (var i2 = 0; i2 < P; i2++) { q[i2] /= nq; }
    var scale = 0;
    for (var k = 0; k < P; k++) {
      q = Q.subarray(k * P, (k + 1) * P);
      apply(q, w);
      var a = dot(w, q);
      alpha.push(a);
      var before = Math.sqrt(dot(w, w));
      for (var pass = 0; pass < 2; pass++) {  // full reorthogonalisation
        for (var j = 0; j <= k; j++) {
          var o = j * P, c = 0;
          for (var t = 0; t < P; t++) { c += w[t] * Q[o + t]; }
          for (var t1 = 0; t1 < P; t1++) { w[t1] -= c * Q[o + t1]; }
        }
        var after = Math.sqrt(dot(w, w));
        if (after > 0.5 * before) { break; }  // "twice is enough" (Kahan, Parlett)
        before = after;
      }
      var b = Math.sqrt(dot(w, w));
      scale = Math.max(scale, Math.abs(a), b);
      var last = k === P - 1 || b <= 1e-14 * Math.max(scale, 1e-300);
      var rz = tridiagTop(alpha, beta);
      var res = Math.sqrt(rz.res * rz.res + b * rz.last * b * rz.last);
      if (last || res <= RTOL * Math.max(rz.big, 1e-300)) {
        return {value: rz.theta, iterations: k + 1, residual: last ? rz.res : res};
      }
      beta.push(b);
      var next = Q.subarray((k + 1) * P, (k + 2) * P);
      for (var t2 = 0; t2 < P; t2++) { next[t2] = w[t2] / b; }
    }
    throw new Error("Lanczos ran past the dimension");  // unreachable: k = P - 1 returns
  }

  /* The sharpness at the point of the last prepare(ws, ...). */
  function sharpness(ws) {
    return topEigenvalue(function (v, out) { hvp(ws, v, out); }, ws.W.length).value;
  }

  /* The exact Hessian in the paper's parameter order (Definition 5: unit, matrix, column, row),
     column by column from Hessian-vector products with the basis vectors. */
  function hessian(ws) {
    var d = ws.net.d, P = ws.W.length, H = [];
    var def5 = function (k) {  // Definition-5 index k -> index in our row-major layout
      var m = Math.floor(k / (d * d)), rem = k % (d * d), col = Math.floor(rem / d), row = rem % d;
      return m * d * d + row * d + col;
    };
    for (var a = 0; a < P; a++) { H.push(new Array(P)); }
    for (var b = 0; b < P; b++) {
      var e = new Float64Array(P);
      e[def5(b)] = 1;
      var h = hvp(ws, e);
      for (var a2 = 0; a2 < P; a2++) { H[a2][b] = h[def5(a2)]; }
    }
    return H;
  }

  // --- gradient descent -------------------------------------------------------------------------
  /* Run `steps` steps of W <- W - lr grad L(W); the loss before every step (steps + 1 values), the
     sharpness at the steps in `sharpAt`, and the step at which the loss left [0, 1e12] (-1: never),
     after which nothing is computed. */
  function descend(net, W0, stats, lr, steps, sharpAt) {
    var ws = workspace(net), W = Float64Array.from(W0), Wn = new Float64Array(W.length);
    var losses = [], sharp = [], sharpSteps = [], want = {};
    (sharpAt || []).forEach(function (s) { want[s] = true; });
    var diverged = -1;
    for (var t = 0; t <= steps; t++) {
      prepare(ws, W, stats);
      if (!(ws.loss <= BLOWUP)) { diverged = t; break; }  // NaN, +inf or above the blow-up level
      losses.push(ws.loss);
      if (want[t]) { sharp.push(sharpness(ws)); sharpSteps.push(t); }
      if (t === steps) { break; }
      for (var i = 0; i < W.length; i++) { Wn[i] = W[i] - lr * ws.grad[i]; }
      var swap = W; W = Wn; Wn = swap;
    }
    return {losses: losses, sharpness: sharp, sharpSteps: sharpSteps, diverged: diverged, W: W};
  }

  // --- JSON in, JSON out ------------------------------------------------------------------------
  function flatMatrix(M, d, what) {
    if (!Array.isArray(M) || M.length !== d) { throw new Error(what + " must be a " + d + " x " + d + " matrix"); }
    var out = new Float64Array(d * d);
    M.forEach(function (row, i) {
      if (!Array.isArray(row) || row.length !== d) { throw new Error(what + " must be a " + d + " x " + d + " matrix"); }
      row.forEach(function (v, j) { out[i * d + j] = v; });
    });
    return out;
  }
  function nested(Wf, net) {  // flat -> [R][n][d][d]
    var d = net.d, out = [];
    for (var r = 0; r < net.R; r++) {
      var u = [];
      for (var l = 0; l < net.n; l++) {
        var o = (r * net.n + l) * d * d, m = [];
        for (var i = 0; i < d; i++) { m.push(Array.prototype.slice.call(Wf, o + i * d, o + (i + 1) * d)); }
        u.push(m);
      }
      out.push(u);
    }
    return out;
  }

  function checkNet(input) {
    var net = {d: input.d, n: input.n, R: input.R, shortcut: !!input.shortcut};
    ["d", "n", "R"].forEach(function (k) {
      if (!(Number.isInteger(net[k]) && net[k] >= 1)) { throw new Error(k + " must be a positive integer, got " + net[k]); }
    });
    return net;
  }

  /* compute(input): input = {d, n, R, shortcut, Sxx, Syx, trSyy, lr, steps, W0 ([R][n][d][d]),
     sharpness_at (steps), hessian (bool)}; output = {loss: [steps + 1] (fewer if it diverged),
     sharpness: [at sharpness_at], diverged_at, grad0, hessian0 (if asked)}. */
  function compute(input) {
    var net = checkNet(input), d = net.d;
    var stats = {Sxx: flatMatrix(input.Sxx, d, "Sxx"), Syx: flatMatrix(input.Syx, d, "Syx"), trSyy: input.trSyy};
    var W0 = new Float64Array(net.R * net.n * d * d);
    if (!Array.isArray(input.W0) || input.W0.length !== net.R) { throw new Error("W0 must have R = " + net.R + " units"); }
    input.W0.forEach(function (u, r) {
      if (!Array.isArray(u) || u.length !== net.n) { throw new Error("W0 must have n = " + net.n + " matrices per unit"); }
      u.forEach(function (m, l) { W0.set(flatMatrix(m, d, "W0[" + r + "][" + l + "]"), (r * net.n + l) * d * d); });
    });
    if (!(input.lr > 0 && isFinite(input.lr))) { throw new Error("lr must be positive and finite, got " + input.lr); }
    var run = descend(net, W0, stats, input.lr, input.steps, input.sharpness_at || []);
    var c0 = prepare(workspace(net), W0, stats);
    var out = {loss: run.losses, sharpness: run.sharpness, diverged_at: run.diverged, grad0: nested(c0.grad, net)};
    if (input.hessian) { out.hessian0 = hessian(c0); }
    return out;
  }

  // --- seeded random starts (the page's own generator) ----------------------------------------
  function mulberry32(seed) {
    var a = seed >>> 0;
    return function () {
      a = (a + 0x6D2B79F5) >>> 0;
      var t = a;
      t = Math.imul(t ^ (t >>> 15), t | 1);
      t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
      return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
    };
  }
  function gaussians(seed, count) {
    var u = mulberry32(0x9E3779B9 ^ (seed * 2654435761)), out = new Float64Array(count);
    for (var i = 0; i < count; i += 2) {
      var u1 = 1 - u(), u2 = u(), rad = Math.sqrt(-2 * Math.log(u1));
      out[i] = rad * Math.cos(2 * Math.PI * u2);
      if (i + 1 < count) { out[i + 1] = rad * Math.sin(2 * Math.PI * u2); }
    }
    return out;
  }
  /* Haar-random orthogonal d x d from a Gaussian matrix: Gram-Schmidt on its columns (QR with a
     positive diagonal of R, the convention of resnet_nb.core.init). */
  function orthogonalFrom(A, d) {
    var Q = new Float64Array(d * d);
    for (var j = 0; j < d; j++) {
      var v = new Float64Array(d);
      for (var i = 0; i < d; i++) { v[i] = A[i * d + j]; }
      for (var pass = 0; pass < 2; pass++) {
        for (var k = 0; k < j; k++) {
          var c = 0;
          for (var i2 = 0; i2 < d; i2++) { c += v[i2] * Q[i2 * d + k]; }
          for (var i3 = 0; i3 < d; i3++) { v[i3] -= c * Q[i3 * d + k]; }
        }
      }
      var nv = Math.sqrt(dot(v, v));
      for (var i4 = 0; i4 < d; i4++) { Q[i4 * d + j] = v[i4] / nv; }
    }
    return Q;
  }
  function start(net, scheme, seed, eps) {
    var s = net.d * net.d, P = net.R * net.n * s, W = new Float64Array(P);
    if (scheme === "zero" && !(eps > 0)) { return W; }
    var g = gaussians(seed, P), sd = 1 / Math.sqrt(net.d);
    if (scheme === "orthogonal") {
      for (var m = 0; m < net.R * net.n; m++) { W.set(orthogonalFrom(g.subarray(m * s, (m + 1) * s), net.d), m * s); }
      return W;
    }
    var f = scheme === "zero" ? eps * sd : sd;  // the small start: eps times a Xavier draw
    for (var i = 0; i < P; i++) { W[i] = f * g[i]; }
    return W;
  }

  var api = {compute: compute, workspace: workspace, topEigenvalue: topEigenvalue, prepare: prepare, hvp: hvp, hessian: hessian, sharpness: sharpness,
             descend: descend, start: start, gaussians: gaussians, orthogonalFrom: orthogonalFrom};
  if (typeof module !== "undefined" && module.exports) { module.exports = api; }
  if (typeof window === "undefined" || !window.resnetLive) { return; }

  // === the page ===================================================================================
  var ARCH = {
    "plain-xavier": {n: 1, shortcut: false, scheme: "xavier", text: "plain, Xavier start"},
    "plain-orthogonal": {n: 1, shortcut: false, scheme: "orthogonal", text: "plain, orthogonal start"},
    "shortcut1": {n: 1, shortcut: true, scheme: "zero", text: "1-shortcut, zero start"},
    "shortcut2": {n: 2, shortcut: true, scheme: "zero", text: "2-shortcut, zero start"},
    "shortcut3": {n: 3, shortcut: true, scheme: "zero", text: "3-shortcut, zero start"},
  };
  var MAX_P = 400;       // weights the page trains (d = 4: depth up to 25)
  var SAMPLES = 60;      // sharpness samples per run: every step up to 60 steps, then evenly spaced
  var FIRST_MS = 35;     // the first drawing has the sharpness samples computed within this time
  var SLICE_MS = 30;     // longest slice of the refinement between two paints
  var COLORS = {loss: "#1f77b4", sharp: "#d62728", edge: "#555"};

  function fmtNum(x) {
    if (!isFinite(x)) { return String(x); }
    var a = Math.abs(x);
    return (a !== 0 && (a < 1e-3 || a >= 1e4)) ? x.toExponential(2) : String(Number(x.toPrecision(3)));
  }

  var controls = [
    {key: "arch", label: "network", type: "select", value: "shortcut2",
     options: Object.keys(ARCH).map(function (k) { return [k, ARCH[k].text]; })},
    {key: "R", label: "units R (depth n·R)", type: "range", min: 1, max: 16, step: 1, value: 8},
    {key: "d", label: "width d", type: "range", min: 1, max: 4, step: 1, value: 4},
    {key: "lg_lr", label: "learning rate η (log scale)", type: "range", min: -3, max: 0.5, step: 0.05, value: 0,
     format: function (v) { return "η = " + fmtNum(Math.pow(10, v)); }},
    {key: "eps", label: "shortcut start: 0 + ε × Xavier", type: "select", value: "0.01",
     options: [["0", "ε = 0 (exactly zero)"], ["0.001", "ε = 0.001"], ["0.01", "ε = 0.01 (the paper's small start)"],
               ["0.1", "ε = 0.1"]]},
    {key: "seed", label: "seed of the random start", type: "range", min: 0, max: 9, step: 1, value: 0},
    {key: "data", label: "data", type: "select", value: "near",
     options: [["near", "y = Qx + noise, Q near I"], ["far", "y = Qx + noise, Q near −I"]]},
    {key: "steps", label: "steps", type: "select", value: 200,
     options: [[50, "50"], [100, "100"], [200, "200"], [500, "500"], [1000, "1000"]]},
  ];

  function sampleSteps(steps) {
    var every = Math.max(1, Math.ceil(steps / SAMPLES)), out = [];
    for (var t = 0; t <= steps; t += every) { out.push(t); }
    if (out[out.length - 1] !== steps) { out.push(steps); }
    return out;
  }

  /* The run of a setting: the loss at every step and the weights at the sampled steps (the sharpness
     there is filled in by refine()). */
  function runFor(state, data) {
    var a = ARCH[state.arch], d = Number(state.d), R = Number(state.R);
    var net = {d: d, n: a.n, R: R, shortcut: a.shortcut};
    var P = R * a.n * d * d;
    if (P > MAX_P) {
      throw window.resnetLive.TooLarge("A " + a.text.split(",")[0] + " network of depth " + (a.n * R) + " and width " + d +
        " has " + P + " weights; this page trains up to " + MAX_P + " (at width 4: depth 25). Lower R or d.");
    }
    var set = data.datasets[state.data][String(d)];
    var stats = {Sxx: flatMatrix(set.Sxx, d, "Sxx"), Syx: flatMatrix(set.Syx, d, "Syx"), trSyy: set.trSyy};
    var W0 = start(net, a.scheme, Number(state.seed), Number(state.eps));
    var lr = Math.pow(10, Number(state.lg_lr)), steps = Number(state.steps);
    var ws = workspace(net), W = Float64Array.from(W0), Wn = new Float64Array(W.length);
    var samples = sampleSteps(steps), want = {}, snaps = {}, losses = [], diverged = -1;
    samples.forEach(function (s) { want[s] = true; });
    for (var t = 0; t <= steps; t++) {
      prepare(ws, W, stats);
      if (!(ws.loss <= BLOWUP)) { diverged = t; break; }
      losses.push(ws.loss);
      if (want[t]) { snaps[t] = Float64Array.from(W); }
      if (t === steps) { break; }
      for (var i = 0; i < W.length; i++) { Wn[i] = W[i] - lr * ws.grad[i]; }
      var swap = W; W = Wn; Wn = swap;
    }
    samples = samples.filter(function (s) { return s in snaps; });
    // coarse to fine: the first and last samples, then every 32nd, 16th, ..., so that whatever
    // prefix is computed first covers the whole run evenly
    var order = [], seen = {};
    [0, samples.length - 1].forEach(function (k) { if (k >= 0 && !seen[k]) { seen[k] = true; order.push(samples[k]); } });
    for (var stride = 32; stride >= 1; stride /= 2) {
      for (var k = 0; k < samples.length; k += stride) { if (!seen[k]) { seen[k] = true; order.push(samples[k]); } }
    }
    return {net: net, stats: stats, ws: ws, lr: lr, Lmin: set.Lmin, steps: steps, losses: losses, diverged: diverged,
            samples: samples, snaps: snaps, order: order, done: 0, sharp: {}};
  }
  /* Compute the sharpness at the next samples of run.order until `ms` have passed. */
  function refine(run, ms) {
    var t0 = performance.now();
    while (run.done < run.order.length && (run.done === 0 || performance.now() - t0 < ms)) {
      var s = run.order[run.done++];
      prepare(run.ws, run.snaps[s], run.stats);
      run.sharp[s] = sharpness(run.ws);
    }
    return run.done === run.order.length;
  }

  function mount(root, liveApi) {
    var fig = liveApi.figure, live = window.resnetLive;
    var bar = document.createElement("div");
    bar.className = "rn-live-player";
    function button(text, label) {
      var b = document.createElement("button");
      b.type = "button"; b.textContent = text; b.setAttribute("aria-label", label);
      bar.appendChild(b);
      return b;
    }
    var toStart = button("◂◂ step 0", "back to step 0");
    var play = button("▶ play", "play the run step by step");
    var stepB = button("step ▸", "one step forward");
    var readout = document.createElement("div");
    readout.className = "rn-live-readout";
    readout.setAttribute("aria-live", "polite");
    var plots = document.createElement("div");
    plots.className = "rn-live-plots";
    plots.style.display = "flex"; plots.style.flexWrap = "wrap"; plots.style.gap = "8px";
    var left = document.createElement("div"), right = document.createElement("div");
    plots.appendChild(left); plots.appendChild(right);
    fig.appendChild(bar); fig.appendChild(readout); fig.appendChild(plots);
    var run = null, cursor = 0, timer = null, pending = null, t0 = 0;
    live.times[NAME + ":complete"] = [];

    function width() { return Math.max(280, Math.min(400, (fig.clientWidth || 800) / 2 - 8)); }
    function last() { return run ? run.losses.length - 1 : 0; }
    function paint() {
      if (!run) { return; }
      var shown = Math.min(cursor, last()), floor = 1e-15 * Math.max(1, Math.abs(run.Lmin));
      var xs = [], gaps = [];
      for (var t = 0; t <= shown; t++) { xs.push(t); gaps.push(Math.max(run.losses[t] - run.Lmin, floor)); }
      var sx = [], sy = [];
      run.samples.forEach(function (s) { if (s <= shown && s in run.sharp) { sx.push(s); sy.push(run.sharp[s]); } });
      var W = width(), edge = 2 / run.lr, xmax = run.steps;
      live.plot.lines(left, {series: [{x: xs, y: gaps, label: "loss − L_min", color: COLORS.loss}],
        xlabel: "step", ylabel: "loss − L_min", logy: true, width: W, height: 230, xmin: 0, xmax: xmax,
        title: "loss above the optimum (log scale)"});
      live.plot.lines(right, {series: [
        {x: sx, y: sy, label: "sharpness λmax", color: COLORS.sharp, points: sx.length < 25},
        {x: [0, xmax], y: [edge, edge], label: "2/η", color: COLORS.edge}],
        xlabel: "step", ylabel: "λmax", width: W, height: 230, xmin: 0, xmax: xmax, ymin: 0,
        title: "sharpness against 2/η"});
      var text = "";
      if (gaps.length) {
        var gap = gaps[gaps.length - 1];
        text = "step " + shown + ": loss − L_min " + (gap <= floor ? "≤ " + fmtNum(floor) + " (rounding)" : "= " + fmtNum(gap));
        if (sy.length) { text += ", λmax = " + fmtNum(sy[sy.length - 1]) + " (step " + sx[sx.length - 1] + ")"; }
        text += ", 2/η = " + fmtNum(edge);
      }
      if (run.done < run.order.length) { text += " · sharpness at " + run.done + " of " + run.order.length + " steps, refining…"; }
      readout.textContent = text;
    }
    function stop() { if (timer) { cancelAnimationFrame(timer); timer = null; } play.textContent = "▶ play"; }
    function frame() {
      cursor = Math.min(last(), cursor + Math.max(1, Math.round(run.steps / 150)));
      paint();
      if (cursor >= last()) { stop(); return; }
      timer = requestAnimationFrame(frame);
    }
    play.addEventListener("click", function () {
      if (timer) { stop(); return; }
      if (cursor >= last()) { cursor = 0; }
      play.textContent = "❚❚ pause";
      timer = requestAnimationFrame(frame);
    });
    stepB.addEventListener("click", function () { stop(); cursor = cursor >= last() ? 0 : cursor + 1; paint(); });
    toStart.addEventListener("click", function () { stop(); cursor = 0; paint(); });

    function more() {
      pending = null;
      if (!run) { return; }
      var finished = refine(run, SLICE_MS);
      paint();
      if (finished) { live.times[NAME + ":complete"].push(performance.now() - t0); }
      else { pending = setTimeout(more, 0); }
    }

    return {
      draw: function (state) {
        stop();
        if (pending) { clearTimeout(pending); pending = null; }
        t0 = performance.now();
        run = null;
        left.innerHTML = ""; right.innerHTML = ""; readout.textContent = "";
        run = runFor(state, liveApi.data);
        refine(run, FIRST_MS);
        cursor = last();
        paint();
        if (run.diverged >= 0) {
          liveApi.tooLarge("Diverged: at step " + run.diverged + " the loss left [0, 10¹²] (η = " + fmtNum(run.lr) +
            " is too large for this start), so the run stops there" + (run.diverged > 0 ? " and the curves end at step " +
            (run.diverged - 1) : "") + ".");
        }
        if (run.done < run.order.length) { pending = setTimeout(more, 0); }
        else { live.times[NAME + ":complete"].push(performance.now() - t0); }
      },
    };
  }

  window.resnetLive.register(NAME, {compute: compute, controls: controls, data: true, mount: mount});
})();
