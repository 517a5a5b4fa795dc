// live-hm-theorem32.js: Hardt & Ma, Theorem 3.2, computed in the page: the construction of
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

  // Python's format(x, ".3g") for the package's messages: live.js, resnetLive.format.g
  const fmtG = (x, digits) => root.resnetLive.format.g(x, digits);


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


  // --- compute: what the cross-check compares (resnet_nb/book/live/hm_theorem32.py, explore) ---
  // A block's units are listed in the order of the points they move.
  let NORMALS = null; // the page's data: default_rng(seed).standard_normal, exported at build time
  function compute(input) {
    const normals = input.normals || NORMALS;
    const X = input.X;
    const o = construction(X, input.labels, Number(input.seed), normals);
    if (o.refusal) return { refusal: o.refusal, partial: o };
    const U = [];
    const V = [];
    const b = [];
    const idx = [];
    const mgs = [];
    for (const bl of o.blocks) {
      const m = bl.idx.length;
      const ord = bl.idx.map((_, a) => a).sort((x, y) => bl.idx[x] - bl.idx[y]);
      const units = ord.concat(Array.from({ length: K - m }, (_, j) => m + j));
      U.push(units.map((a) => bl.U[a].slice()));
      V.push([0, 1].map((c) => units.map((a) => bl.V[c][a])));
      b.push(units.map((a) => bl.b[a]));
      idx.push(units.map((a) => (a < m ? bl.idx[a] : -1)));
      mgs.push(units.map((a) => (a < m ? bl.margins[a] : null)));
    }
    return {
      k: o.k,
      r: o.r,
      n: o.n,
      A0: o.A0,
      radius: o.radius,
      Q: o.Q,
      states: o.states,
      U: U,
      V: V,
      b: b,
      idx: idx,
      margins: mgs,
      last_U: o.last.U,
      last_V: o.last.V,
      last_b: o.last.b,
      outputs: o.outputs,
      trainable: o.params.trainable,
      residual: o.params.residual,
      last_params: o.params.last,
      projection: o.params.projection,
      min_margin: o.min_margin,
      moved_error: o.moved_error,
    };
  }

  // --- the figure ---------------------------------------------------------------------------
  const PALETTE = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#17becf"];
  const GRID = 100; // points snap to a 0.01 grid, as the exported cases do
  const EXTENT = 1.2; // the input panel shows [-1.2, 1.2]^2
  const MAX_POINTS = 100; // beyond, the page says so instead of adding (the construction is O(n^3))

  const WHY = [
    ["identical points", "Two points sit at the same place: no network gives them different outputs. Drag one away."],
    ["radius must lie", "A point sits at the origin: the projection keeps it at 0, every unit is silent there, and the surrogates (half the smallest norm) would be 0. Move it."],
    ["projection merged", "This draw of the projection maps two of your points onto one; choose another draw."],
    ["surrogates nearly coincide", "For this draw two labels' surrogates nearly coincide; choose another draw."],
    ["positive margin", "No remaining point is isolated by a hidden unit (rounding: points nearly on top of each other)."],
    ["<= 0", "A point is not isolated by its hidden unit (rounding: points nearly on top of each other)."],
    ["at least one point", "Click in the left panel to place points."],
  ];
  function why(reason) {
    for (const [key, text] of WHY) if (reason.indexOf(key) >= 0) return text;
    return "";
  }
  function el(tag, cls, text) {
    const e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined) e.textContent = text;
    return e;
  }
  function fmt(x, d) {
    if (x === null || x === undefined || Number.isNaN(x)) return "–";
    if (!Number.isFinite(x)) return "∞";
    const a = Math.abs(x);
    if (a !== 0 && (a < 1e-3 || a >= 1e5)) return x.toExponential(2).replace("-", "−");
    return x.toFixed(d === undefined ? 3 : d).replace("-", "−");
  }
  function canvas(parent, size) {
    let c = parent.querySelector("canvas");
    if (!c) {
      c = document.createElement("canvas");
      parent.insertBefore(c, parent.firstChild);
    }
    const ratio = window.devicePixelRatio || 1;
    c.style.width = size + "px";
    c.style.height = size + "px";
    c.width = Math.round(size * ratio);
    c.height = Math.round(size * ratio);
    const ctx = c.getContext("2d");
    ctx.setTransform(ratio, 0, 0, ratio, 0, 0);
    return ctx;
  }
  function star(ctx, x, y, r) {
    ctx.beginPath();
    for (let i = 0; i < 10; i++) {
      const a = -Math.PI / 2 + (i * Math.PI) / 5;
      const rr = i % 2 ? r / 2.5 : r;
      ctx[i ? "lineTo" : "moveTo"](x + rr * Math.cos(a), y + rr * Math.sin(a));
    }
    ctx.closePath();
  }
  function encode(pts) {
    return pts.map((p) => Math.round(p[0] * GRID) + "_" + Math.round(p[1] * GRID) + "_" + p[2]).join("~");
  }
  function decode(s) {
    const out = [];
    for (const part of String(s).split("~")) {
      const v = part.split("_").map(Number);
      if (v.length === 3 && v.every(Number.isFinite) && Number.isInteger(v[2]) && v[2] >= 0 && v[2] < PALETTE.length) {
        out.push([v[0] / GRID, v[1] / GRID, v[2]]);
      }
    }
    return out;
  }

  function mount(root, api) {
    const data = api.data || {};
    NORMALS = data.normals;
    const presets = data.presets || {};
    const presetPoints = (name) => {
      const p = presets[name];
      return p ? p.labels.map((y, j) => [p.X[0][j], p.X[1][j], y]) : [];
    };
    const fig = api.figure;
    const text = el("div");
    text.style.flexBasis = "100%";
    text.style.fontSize = "0.9em";
    const left = el("figure");
    const right = el("figure");
    const capL = el("figcaption");
    const capR = el("figcaption");
    left.appendChild(capL);
    right.appendChild(capR);
    const tools = el("div");
    tools.style.flexBasis = "100%";
    const undo = el("button", "rn-live-reset", "Remove last point");
    undo.type = "button";
    const clear = el("button", "rn-live-reset", "Clear");
    clear.type = "button";
    tools.appendChild(undo);
    tools.appendChild(clear);
    fig.appendChild(text);
    fig.appendChild(left);
    fig.appendChild(right);
    fig.appendChild(tools);

    let points = null;
    let applied = null; // the preset the points came from
    let reload = false; // set by Reset: the preset's points again
    let lastState = api.state;
    const hashPts = new URLSearchParams(window.location.hash.replace(/^#/, "")).get("hm-theorem32.pts");
    if (hashPts !== null) {
      points = decode(hashPts).slice(0, MAX_POINTS);
      applied = api.state.preset;
    }
    function storePoints(custom) {
      const params = new URLSearchParams(window.location.hash.replace(/^#/, ""));
      if (custom) params.set("hm-theorem32.pts", encode(points));
      else params.delete("hm-theorem32.pts");
      const s = params.toString();
      history.replaceState(null, "", s ? "#" + s : window.location.pathname + window.location.search);
    }
    // the shared Reset restores the preset's points too (capture: before the redraw it triggers)
    root.addEventListener(
      "click",
      (e) => {
        if (e.target && e.target.classList && e.target.classList.contains("rn-live-reset") && !tools.contains(e.target)) {
          reload = true;
        }
      },
      true,
    );
    let size = 300;
    let view = { scale: 1, cx: 0 };
    const toPx = (x, y) => [size / 2 + (x / EXTENT) * (size / 2), size / 2 - (y / EXTENT) * (size / 2)];
    const fromPx = (px, py) => [((px - size / 2) / (size / 2)) * EXTENT, (-(py - size / 2) / (size / 2)) * EXTENT];
    const snap = (v) => Math.round(Math.max(-1, Math.min(1, v)) * GRID) / GRID;

    function room() {
      if (points.length < MAX_POINTS) return true;
      api.tooLarge("At most " + MAX_POINTS + " points here: remove one first (the construction's cost grows like n³).");
      return false;
    }
    function edited() {
      storePoints(true);
      redraw();
    }
    function redraw() {
      window.resnetLive.mounted["hm-theorem32"].redraw();
    }
    undo.addEventListener("click", () => {
      points.pop();
      edited();
    });
    clear.addEventListener("click", () => {
      points = [];
      edited();
    });
    let drag = -1;
    function pointerPos(e, c) {
      const r = c.getBoundingClientRect();
      return [((e.clientX - r.left) * size) / r.width, ((e.clientY - r.top) * size) / r.height];
    }
    function hit(px, py) {
      let best = -1;
      let bd = 10;
      points.forEach((p, j) => {
        const [qx, qy] = toPx(p[0], p[1]);
        const d = Math.hypot(qx - px, qy - py);
        if (d < bd) {
          bd = d;
          best = j;
        }
      });
      return best;
    }
    // by keyboard: the panel takes focus; Enter adds a point (at the selected one, moved 0.1 right),
    // the arrows move the selected point by 0.01 (0.1 with Shift), [ and ] select, Delete removes
    let selected = -1;
    function onKey(e) {
      const step = e.shiftKey ? 0.1 : 0.01;
      const moves = { ArrowLeft: [-step, 0], ArrowRight: [step, 0], ArrowUp: [0, step], ArrowDown: [0, -step] };
      if (selected >= points.length) selected = points.length - 1;
      if (e.key === "Enter") {
        if (!room()) return;
        const base = selected >= 0 ? points[selected] : [0.4, 0.4];
        points.push([snap(base[0] + 0.1), snap(base[1]), Number(lastState.label)]);
        selected = points.length - 1;
      } else if (moves[e.key] && selected >= 0) {
        const p = points[selected];
        p[0] = snap(p[0] + moves[e.key][0]);
        p[1] = snap(p[1] + moves[e.key][1]);
      } else if ((e.key === "]" || e.key === "[") && points.length) {
        selected = (selected + (e.key === "]" ? 1 : points.length - 1)) % points.length;
        redraw();
        e.preventDefault();
        return;
      } else if ((e.key === "Delete" || e.key === "Backspace") && selected >= 0) {
        points.splice(selected, 1);
        selected = Math.min(selected, points.length - 1);
      } else {
        return;
      }
      e.preventDefault();
      edited();
    }
    function attach(c) {
      if (c.dataset.hm32) return;
      c.dataset.hm32 = "1";
      c.tabIndex = 0;
      c.setAttribute("role", "application");
      c.setAttribute(
        "aria-label",
        "Your points. Enter adds a point, the arrow keys move the selected point, [ and ] select another, Delete removes it.",
      );
      c.addEventListener("keydown", onKey);
      c.addEventListener("focus", redraw); // the selected point's ring
      c.addEventListener("blur", redraw);
      c.style.touchAction = "none";
      c.style.cursor = "crosshair";
      c.addEventListener("pointerdown", (e) => {
        const [px, py] = pointerPos(e, c);
        const j = hit(px, py);
        if (j >= 0 && e.shiftKey) {
          points.splice(j, 1);
          edited();
          return;
        }
        if (j >= 0) {
          drag = j;
          selected = j;
          c.setPointerCapture(e.pointerId);
          return;
        }
        const [x, y] = fromPx(px, py);
        if (!room()) return;
        points.push([snap(x), snap(y), Number(lastState.label)]);
        selected = points.length - 1;
        edited();
      });
      c.addEventListener("pointermove", (e) => {
        if (drag < 0) return;
        const [x, y] = fromPx(...pointerPos(e, c));
        const p = points[drag];
        const nx = snap(x);
        const ny = snap(y);
        if (nx !== p[0] || ny !== p[1]) {
          p[0] = nx;
          p[1] = ny;
          edited();
        }
      });
      const end = () => {
        drag = -1;
      };
      c.addEventListener("pointerup", end);
      c.addEventListener("pointercancel", end);
    }

    function drawPoints(ctx, H, labels, mapx) {
      H[0].forEach((_, j) => {
        const [px, py] = mapx(H[0][j], H[1][j]);
        ctx.fillStyle = PALETTE[labels[j] % PALETTE.length];
        ctx.beginPath();
        ctx.arc(px, py, 4, 0, 2 * Math.PI);
        ctx.fill();
      });
    }
    function frame(ctx) {
      ctx.clearRect(0, 0, size, size);
      ctx.strokeStyle = "#ddd";
      ctx.lineWidth = 1;
      ctx.beginPath();
      ctx.moveTo(size / 2, 0);
      ctx.lineTo(size / 2, size);
      ctx.moveTo(0, size / 2);
      ctx.lineTo(size, size / 2);
      ctx.stroke();
      ctx.strokeStyle = "#444";
      ctx.strokeRect(0.5, 0.5, size - 1, size - 1);
    }

    function draw(state) {
      lastState = state;
      if (points === null || reload || applied !== state.preset) {
        // first draw, Reset, or another preset: the preset's points (a linked setting's own points
        // were read before the first draw)
        points = presetPoints(state.preset);
        if (applied !== null) storePoints(false);
        applied = state.preset;
        reload = false;
      }
      size = Math.max(240, Math.min(340, fig.clientWidth ? Math.floor(fig.clientWidth / 2) - 14 : 320));
      left.style.width = right.style.width = size + "px"; // the captions wrap under their panel
      const X = [points.map((p) => p[0]), points.map((p) => p[1])];
      const labels = points.map((p) => p[2]);
      const o = compute({ X: X, labels: labels, seed: Number(state.seed) });
      // left: the reader's points
      const ctxL = canvas(left, size);
      attach(ctxL.canvas);
      frame(ctxL);
      drawPoints(ctxL, X, labels, toPx);
      if (selected >= 0 && selected < points.length && document.activeElement === ctxL.canvas) {
        const [sx, sy] = toPx(points[selected][0], points[selected][1]);
        ctxL.strokeStyle = "#000";
        ctxL.beginPath();
        ctxL.arc(sx, sy, 8, 0, 2 * Math.PI);
        ctxL.stroke();
      }
      capL.textContent =
        "Your points x (click to add with the chosen label, drag to move, shift-click to remove; or by " +
        "keyboard: Enter, arrows, [ ], Delete); " +
        points.length + " points.";
      // right: the hidden plane after block j
      const ctxR = canvas(right, size);
      frame(ctxR);
      text.textContent = "";
      if (o.refusal) {
        capR.textContent = "The construction refuses this configuration.";
        const p = el("p");
        p.textContent = "The package refuses: “" + o.refusal + "”. " + why(o.refusal);
        p.style.color = "#8a3a00";
        text.appendChild(p);
        return;
      }
      const B = o.U.length;
      const j = Math.min(Number(state.step), B);
      const H = o.states[j];
      let m = 0;
      for (const S of [o.states[0], o.Q]) for (const row of S) for (const v of row) m = Math.max(m, Math.abs(v));
      const ext = 1.15 * m || 1;
      const mapH = (x, y) => [size / 2 + (x / ext) * (size / 2), size / 2 - (y / ext) * (size / 2)];
      // the next block's units: each fires beyond its line <z, h> = ||z||^2 - delta
      if (j < B) {
        ctxR.setLineDash([4, 3]);
        ctxR.strokeStyle = "#888";
        for (let a = 0; a < K; a++) {
          if (o.idx[j][a] < 0) continue;
          const z = o.U[j][a];
          const c = -o.b[j][a]; // ||z||^2 - delta
          const nz = Math.hypot(z[0], z[1]);
          const t = c / (nz * nz);
          const px = [z[0] * t, z[1] * t];
          const d = [-z[1] / nz, z[0] / nz];
          const p1 = mapH(px[0] - 3 * ext * d[0], px[1] - 3 * ext * d[1]);
          const p2 = mapH(px[0] + 3 * ext * d[0], px[1] + 3 * ext * d[1]);
          ctxR.beginPath();
          ctxR.moveTo(...p1);
          ctxR.lineTo(...p2);
          ctxR.stroke();
          const i = o.idx[j][a];
          const from = mapH(H[0][i], H[1][i]);
          const to = mapH(o.Q[0][labels[i]], o.Q[1][labels[i]]);
          ctxR.beginPath();
          ctxR.moveTo(...from);
          ctxR.lineTo(...to);
          ctxR.stroke();
        }
        ctxR.setLineDash([]);
      }
      for (let c = 0; c < o.r; c++) {
        const [px, py] = mapH(o.Q[0][c], o.Q[1][c]);
        ctxR.fillStyle = PALETTE[c % PALETTE.length];
        star(ctxR, px, py, 8);
        ctxR.fill();
        ctxR.strokeStyle = "#222";
        ctxR.stroke();
      }
      drawPoints(ctxR, H, labels, mapH);
      capR.textContent =
        j === 0
          ? "The points after the projection h = A0 x (stars: the labels' surrogates); dashed: the first block's units and moves."
          : "After block " + j + " of " + B + ": moved points sit on their label's surrogate (star)" +
            (j < B ? "; dashed: block " + (j + 1) + "'s units and moves." : "; the last block maps each star to its one-hot label.");
      let vmax = 0;
      for (const Vb of o.V) for (const row of Vb) for (const v of row) vmax = Math.max(vmax, Math.abs(v));
      let fit = 0;
      o.outputs.forEach((row, c) => row.forEach((v, i) => (fit = Math.max(fit, Math.abs(v - (labels[i] === c ? 1 : 0))))));
      const p = el("p");
      p.textContent =
        "n = " + o.n + " points, r = " + o.r + " labels, width k = 2: " + B + " residual blocks (⌈n/k⌉ = " +
        Math.ceil(o.n / 2) + "), " + o.trainable + " trainable parameters = " + B + " × (2k² + k) + (rk + r² + r) = " +
        o.residual + " + " + o.last_params + " (and the fixed projection A0, " + o.projection + " numbers). " +
        "Smallest margin " + fmt(o.min_margin) + " (the entries of V grow like 1/margin: largest " + fmt(vmax) +
        "); every output within " + fmt(fit) + " of its one-hot label.";
      text.appendChild(p);
    }
    return { draw: draw };
  }

  const spec = {
    compute: compute,
    data: true,
    controls: [
      {
        key: "preset",
        label: "points",
        type: "select",
        options: [
          ["figure", "the figure's six"],
          ["xor", "XOR"],
          ["rings", "two rings"],
          ["grid", "6 × 6 grid, 3 labels"],
          ["clusters", "three clusters"],
          ["identical", "two identical points"],
          ["origin", "a point at the origin"],
        ],
        value: "figure",
      },
      {
        key: "label",
        label: "label of a new point",
        type: "select",
        options: PALETTE.map((_, c) => [c, "label " + c]),
        value: 0,
      },
      // seed 3: a draw whose three surrogates are far apart (in the plane, random ones often nearly coincide)
      { key: "seed", label: "draw of A0 (seed)", type: "range", min: 0, max: 9, step: 1, value: 3 },
      {
        key: "step",
        label: "after block",
        type: "range",
        min: 0,
        max: 64,
        step: 1,
        value: 1,
        format: (v) => (v >= 64 ? "all" : String(v)),
      },
    ],
    mount: mount,
  };
  const api = { construction, margins, reluBlock, lemmaBlock, compute };
  if (typeof module !== "undefined" && module.exports) module.exports = api;
  else if (root.resnetLive) root.resnetLive.register("hm-theorem32", spec);
})(typeof globalThis !== "undefined" ? globalThis : this);
