/*
 * Live explorer "theorem1-hessian" (book/theorem1.ipynb): the Hessian at w = 0 of a linear
 * n-shortcut network of R units (Theorem 1 of Li et al.), its eigenvalues, cond10, and cond10
 * against depth. The package is the reference: resnet_nb/book/live/theorem1.py exports the data
 * (whitened MNIST's moments at d = 10) and the cases the browser test compares with.
 *
 * Parameters are ordered as in the package (Definition 5): unit, matrix, column j, row i; a
 * unit's matrix block is q x q with q = d^2 and index j d + i. With N = Sxx - Syx:
 *   n = 2: each unit is [[0, A^T], [A, 0]], A[(j1,i1),(j2,i2)] = [j1 = i2] N[i1][j2] (Eq. 21);
 *          its eigenvalues are +-sigma_k(N), each d R times (Eq. 12): no dense eigensolver.
 *   n = 1: block Toeplitz, B on the diagonal, A below, A^T above (Eq. 13),
 *          B[(j1,i1),(j2,i2)] = [i1 = i2] Sxx[j1][j2], A = B + [j1 = i2] N[i1][j2] (Eqs. 25, 28);
 *          A is not symmetric, so the units do not decouple: the page diagonalises the dense
 *          R q x R q matrix up to DENSE_MAX parameters; beyond, on MNIST, it shows the package's
 *          spectra computed at build time, and says so.
 *   n = 3: H = 0 (Part 1).
 */
(function () {
  "use strict";
  var live = window.resnetLive;
  var NAME = "theorem1-hessian";
  var DENSE_MAX = 300;       // parameters up to which the page diagonalises a 1-shortcut Hessian
  var FULL_MAP_MAX = 600;    // parameters up to which the heat map shows every entry
  var data = null;           // api.data: {mnist: {Sxx, Syx}, synthetic: {T}, R_grid, mnist_n1}

  function needData() {
    if (!data) { throw new Error("the explorer's data is not loaded"); }
    return data;
  }

  // --- data --------------------------------------------------------------------------------
  function moments(input) {
    var D = needData();
    if (input.data === "mnist") {
      return {d: D.mnist.Sxx.length, Sxx: D.mnist.Sxx, Syx: D.mnist.Syx};
    }
    if (input.data !== "synthetic") { throw new Error("data must be 'synthetic' or 'mnist', got " + input.data); }
    var rho = Number(input.rho);
    if (!(rho > -1 && rho < 1)) { throw new Error("rho must lie in (-1, 1), got " + input.rho); }
    var T = D.synthetic.T, d = T.length, Sxx = [], Syx = [];
    for (var i = 0; i < d; i++) {
      Sxx.push([]);
      for (var j = 0; j < d; j++) { Sxx[i].push(Math.pow(rho, Math.abs(i - j))); }
    }
    for (i = 0; i < d; i++) {
      Syx.push([]);
      for (j = 0; j < d; j++) {
        var s = 0;
        for (var k = 0; k < d; k++) { s += T[i][k] * Sxx[k][j]; }
        Syx[i].push(s);
      }
    }
    return {d: d, Sxx: Sxx, Syx: Syx};
  }

  // --- Theorem 1's blocks (q x q, q = d^2, nested arrays) ------------------------------------
  function blocks(n, mom) {
    var d = mom.d, q = d * d, i1, j1, i2, j2;
    var N = mom.Sxx.map(function (row, i) { return row.map(function (v, j) { return v - mom.Syx[i][j]; }); });
    var zero = function () { var z = []; for (var a = 0; a < q; a++) { z.push(new Array(q).fill(0)); } return z; };
    if (n >= 3) { return {}; }
    if (n === 2) {
      var A2 = zero();
      for (j1 = 0; j1 < d; j1++) {
        for (i1 = 0; i1 < d; i1++) {
          for (j2 = 0; j2 < d; j2++) { A2[j1 * d + i1][j2 * d + j1] = N[i1][j2]; }  // i2 = j1
        }
      }
      return {M: N, A: A2};
    }
    var B = zero(), A = zero();
    for (j1 = 0; j1 < d; j1++) {
      for (i1 = 0; i1 < d; i1++) {
        for (j2 = 0; j2 < d; j2++) {
          B[j1 * d + i1][j2 * d + i1] = mom.Sxx[j1][j2];  // i2 = i1
          A[j1 * d + i1][j2 * d + i1] = mom.Sxx[j1][j2];
        }
        for (j2 = 0; j2 < d; j2++) { A[j1 * d + i1][j2 * d + j1] += N[i1][j2]; }  // i2 = j1
      }
    }
    return {A: A, B: B};
  }

  /* entry (a, b) of the Hessian at 0, from the blocks (no dense matrix) */
  function entry(n, q, blk) {
    if (n >= 3) { return function () { return 0; }; }
    var w = n * q;
    if (n === 2) {
      return function (a, b) {
        if (Math.floor(a / w) !== Math.floor(b / w)) { return 0; }
        var la = Math.floor((a % w) / q), lb = Math.floor((b % w) / q);
        if (la === 1 && lb === 0) { return blk.A[a % q][b % q]; }
        if (la === 0 && lb === 1) { return blk.A[b % q][a % q]; }
        return 0;
      };
    }
    return function (a, b) {
      var ua = Math.floor(a / q), ub = Math.floor(b / q);
      if (ua === ub) { return blk.B[a % q][b % q]; }
      return ua > ub ? blk.A[a % q][b % q] : blk.A[b % q][a % q];
    };
  }

  /* the largest |entry| of each q x q block (matrix a, matrix b), from the structure */
  function blockMax(n, R, blk) {
    var amax = function (X) { var v = 0; X.forEach(function (row) { row.forEach(function (x) { v = Math.max(v, Math.abs(x)); }); }); return v; };
    var m = R * n, out = [], a, b;
    var mA = blk.A ? amax(blk.A) : 0, mB = blk.B ? amax(blk.B) : 0;
    for (a = 0; a < m; a++) {
      out.push([]);
      for (b = 0; b < m; b++) {
        var v = 0;
        if (n === 1) { v = a === b ? mB : mA; }
        else if (n === 2 && Math.floor(a / 2) === Math.floor(b / 2) && a !== b) { v = mA; }
        out[a].push(v);
      }
    }
    return out;
  }

  function denseHessian(n, R, q, blk) {
    var P = R * n * q, H = new Float64Array(P * P), f = entry(n, q, blk);
    for (var a = 0; a < P; a++) { for (var b = 0; b < P; b++) { H[a * P + b] = f(a, b); } }
    return H;
  }

  function singularValues(M) {
    var svd = new live.lib["ml-matrix"].SVD(M, {computeLeftSingularVectors: false, computeRightSingularVectors: false});
    return svd.diagonal.slice();
  }

  /* eigenvalues of the Hessian at 0, ascending; throws TooLarge beyond DENSE_MAX for n = 1 */
  function eigenvalues(n, R, mom, blk) {
    var d = mom.d, q = d * d, P = R * n * q, out, k, r;
    if (n >= 3) { return new Array(P).fill(0); }
    if (n === 2) {  // Eq. 12: +-sigma_k(M), each d R times
      var s = singularValues(blk.M);
      out = [];
      for (k = 0; k < s.length; k++) {
        for (r = 0; r < d * R; r++) { out.push(s[k]); out.push(-s[k]); }
      }
      return out.sort(function (x, y) { return x - y; });
    }
    if (P > DENSE_MAX) {
      throw live.TooLarge("The 1-shortcut Hessian of " + R + " units at d = " + d + " has " + P +
        " parameters; the page diagonalises at most " + DENSE_MAX + ".");
    }
    return live.linalg.eigvalsh(denseHessian(n, R, q, blk), P);
  }

  function cond10(eigs) {
    var a = eigs.map(Math.abs).sort(function (x, y) { return x - y; });
    var p = live.linalg.percentile(a, 10);
    return p > 0 ? a[a.length - 1] / p : Infinity;
  }

  function precomputed(input, R) {
    var pre = needData().mnist_n1;
    var k = input.data === "mnist" && input.n === 1 ? pre.R.indexOf(R) : -1;
    return k < 0 ? null : {cond10: pre.cond10[k], quantiles: pre.quantiles[k]};
  }

  /* eigenvalues through a cache {key: eigs} (the figure keeps one per data setting) */
  function eigsCached(n, R, mom, blk, cache) {
    var key = n + "/" + R;
    if (!cache) { return eigenvalues(n, R, mom, blk); }
    if (!(key in cache)) { cache[key] = eigenvalues(n, R, mom, blk); }
    return cache[key];
  }

  /* cond10 at every R of the grid ("inf" for n = 3; null where neither the page nor the build
     computed it) */
  function curve(input, mom, blk, cache) {
    return needData().R_grid.map(function (R) {
      try { return cond10(eigsCached(input.n, R, mom, blk, cache)); }
      catch (e) {
        if (e.name !== "TooLarge") { throw e; }
        var pre = precomputed(input, R);
        return pre ? pre.cond10 : null;
      }
    });
  }

  /* The page's computation (the browser test compares it with the package's cases):
     input {n, R, data: "synthetic" | "mnist", rho, dense} -> {d, P, eigs, cond10, M | A, B,
     curve_cond10, H (with dense: nested P x P)}. */
  function compute(input) {
    var n = Number(input.n), R = Number(input.R);
    if ([1, 2, 3].indexOf(n) < 0) { throw new Error("n must be 1, 2 or 3, got " + input.n); }
    if (!(R >= 1 && R === Math.floor(R))) { throw new Error("R must be a positive integer, got " + input.R); }
    var inp = Object.assign({}, input, {n: n, R: R});
    var mom = moments(inp), q = mom.d * mom.d, blk = blocks(n, mom);
    var eigs = eigenvalues(n, R, mom, blk);
    var out = Object.assign({d: mom.d, P: R * n * q, eigs: eigs, cond10: cond10(eigs)}, blk);
    out.curve_cond10 = curve(inp, mom, blk, null);
    if (input.dense) {
      var P = R * n * q, H = denseHessian(n, R, q, blk), rows = [];
      for (var a = 0; a < P; a++) { rows.push(Array.from(H.subarray(a * P, (a + 1) * P))); }
      out.H = rows;
    }
    return out;
  }

  // --- the figure --------------------------------------------------------------------------
  function panel(parent, cls, caption, width) {
    var fig = parent.querySelector("figure." + cls);
    if (!fig) {
      fig = document.createElement("figure");
      fig.className = cls;
      fig.appendChild(document.createElement("div"));
      fig.appendChild(document.createElement("figcaption"));
      parent.appendChild(fig);
    }
    fig.lastChild.textContent = caption;
    if (width) { fig.style.width = width + "px"; }
    return fig.firstChild;
  }

  function fmt(v) {
    if (v === null || v === undefined) { return "not computed"; }
    if (!isFinite(v)) { return "undefined (H = 0)"; }
    return Number(v.toPrecision(4)).toString();
  }

  function mount(root, api) {
    data = api.data;
    var fig = api.figure;
    var caches = {};   // eigenvalues per data setting, "n/R" -> ascending array
    var summary = document.createElement("p");
    summary.className = "rn-live-summary";
    fig.parentNode.insertBefore(summary, fig);

    function draw(state) {
      var input = {n: Number(state.n), R: Number(state.R), data: state.data, rho: Number(state.rho)};
      var n = input.n, R = input.R;
      var mom = moments(input), d = mom.d, q = d * d, P = R * n * q;
      var blk = blocks(n, mom);
      var avail = root.clientWidth - 24;  // two panels a row where they fit, one on a phone
      var width = Math.floor(Math.max(200, Math.min(330, avail >= 560 ? (avail - 16) / 2 : avail)));

      // heat map: every entry for small sizes, one cell per d^2 x d^2 block beyond
      var f = entry(n, q, blk), scale = 0, a, b;
      ["A", "B"].forEach(function (k) {
        if (blk[k]) { blk[k].forEach(function (row) { row.forEach(function (v) { scale = Math.max(scale, Math.abs(v)); }); }); }
      });
      var mapBox = panel(fig, "rn-t1-map", "", width);
      if (P <= FULL_MAP_MAX) {
        live.plot.heatmap(mapBox, {rows: P, cols: P, value: f, scale: scale, size: width,
          grid: q, unitGrid: n * q});
        mapBox.nextSibling.textContent = "Hessian at 0, " + P + " x " + P + " (red > 0, blue < 0); " +
          "thin lines: matrices, thick lines: units" + (n >= 3 ? "; every entry is 0" : "");
      } else {
        var m = R * n, cell = blockMax(n, R, blk);
        live.plot.heatmap(mapBox, {rows: m, cols: m, value: function (i, j) { return cell[i][j]; },
          scale: scale, size: width, grid: m <= 64 ? 1 : 0, unitGrid: n});
        mapBox.nextSibling.textContent = "block view: " + m + " x " + m + " blocks of " + q + " x " + q +
          ", each coloured by its largest |entry| (P = " + P + ")";
      }

      var key = input.data === "mnist" ? "mnist" : "synthetic/" + input.rho;
      if (!caches[key] && Object.keys(caches).length > 8) { caches = {}; }
      var cache = caches[key] = caches[key] || {};

      // spectrum
      var specBox = panel(fig, "rn-t1-spec", "", width);
      var eigs = null, note = "";
      try { eigs = eigsCached(n, R, mom, blk, cache); }
      catch (e) {
        if (e.name !== "TooLarge") { throw e; }
        var pre = precomputed(input, R);
        if (pre) {
          eigs = pre.quantiles;
          note = " (computed by the package when the book was built: " + pre.quantiles.length + " quantiles)";
        } else {
          var avail = needData().mnist_n1.R.join(", ");
          api.tooLarge(e.message + (input.data === "mnist" ? " The book computed R = " + avail + " when it was built." : ""));
        }
      }
      if (eigs) {
        var xs = eigs.map(function (v, k) { return eigs.length === P ? k + 1 : 1 + k * (P - 1) / (eigs.length - 1); });
        live.plot.lines(specBox, {series: [{x: xs, y: eigs, color: "#1f4e79", points: P <= 120}],
          xlabel: "index k", ylabel: "eigenvalue", width: width, height: 220});
      } else {
        live.plot.lines(specBox, {series: [], width: width, height: 220, empty: "not computed in the page"});
      }
      specBox.nextSibling.textContent = "eigenvalues, ascending" + note;

      // cond10 against depth, n = 1 and n = 2 (n = 3: H = 0, cond10 undefined)
      var grid = needData().R_grid, series = [];
      [[1, "#b2182b", "n = 1"], [2, "#2166ac", "n = 2"]].forEach(function (s) {
        var c = curve(Object.assign({}, input, {n: s[0]}), mom, s[0] === n ? blk : blocks(s[0], mom), cache);
        series.push({x: grid.map(function (r) { return s[0] * r; }), y: c.map(function (v) { return v === null ? NaN : v; }),
          color: s[1], label: s[2]});
      });
      var c10 = eigs && eigs.length === P ? cond10(eigs) : (precomputed(input, R) || {}).cond10;
      if (n <= 2 && c10 !== undefined && isFinite(c10)) { series.push({x: [n * R], y: [c10], color: "#000", points: true, label: "this setting"}); }
      live.plot.lines(panel(fig, "rn-t1-depth", "cond10 = |λ|max / |λ|(10%) against depth L = nR (log scale)", width),
        {series: series, xlabel: "depth L = nR", ylabel: "cond10", logy: true, width: width, height: 220, xmin: 0,
         ymin: 1, legendAt: [0.62, 0.55]});

      summary.textContent = "n = " + n + ", R = " + R + ", d = " + d + ": " + P + " parameters; cond10 = " +
        fmt(c10 === undefined ? null : c10) +
        (n === 2 ? "; the units decouple (block diagonal), and cond10 does not depend on R" :
         n === 1 ? "; every unit is coupled to every other (block Toeplitz)" : "; the Hessian vanishes") +
        (input.data === "mnist" ? " (MNIST: ρ has no effect)" : "");
    }
    return {draw: draw};
  }

  live.register(NAME, {
    compute: compute,
    libs: ["ml-matrix"],
    data: true,
    controls: [
      {key: "n", label: "matrices per unit n", type: "select", options: [[1, "n = 1"], [2, "n = 2"], [3, "n = 3"]], value: 2},
      {key: "R", label: "units R", type: "range", min: 1, max: 32, step: 1, value: 3},
      {key: "data", label: "data", type: "select",
       options: [["synthetic", "synthetic (d = 3)"], ["mnist", "whitened MNIST (d = 10)"]], value: "synthetic"},
      {key: "rho", label: "input correlation ρ", type: "range", min: -0.95, max: 0.95, step: 0.05, value: 0.5,
       format: function (v) { return v.toFixed(2); }},
    ],
    mount: mount,
  });
})();
