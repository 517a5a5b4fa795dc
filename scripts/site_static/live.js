/*
 * live.js: the shared machinery of the book's live explorers (kernel-free, computed in the page).
 * book.js loads this file only on pages that hold an element with a data-live attribute.
 *
 * API (window.resnetLive), all an explorer file needs:
 *
 *   resnetLive.register(name, {
 *     compute: function (input) -> output,   // pure: plain JSON in, plain JSON out (arrays of
 *                                             // numbers, nested arrays for matrices); the browser
 *                                             // test runs it on the cases the build exports
 *     controls: [ {key, label, type: "range", min, max, step, value, format?(v) -> text},
 *                 {key, label, type: "select", options: [[value, text], ...], value} ],
 *     libs: ["ml-matrix"],                   // optional: vendored libraries to load first
 *     data: true,                            // optional: load _static/live/<name>.data.json
 *     mount: function (root, api) -> {draw: function (state)}   // builds the figure area
 *   });
 *
 *   An explorer's code lives in scripts/site_static/live-<name>.js and calls register(name, ...);
 *   the loader fetches that file for every <div data-live="<name>"> on the page. mount() gets
 *   api = {state, data, figure (an element to draw into), status(text), tooLarge(text),
 *   timeRedraw}. draw(state) runs after every control move; it is timed (performance.now()) and
 *   the times are kept in resnetLive.times[name]. Throwing resnetLive.TooLarge(message) from
 *   draw or compute shows the message in the page instead of a figure.
 *
 *   Helpers: resnetLive.plot.{heatmap, lines} (canvas), resnetLive.linalg.{eigvalsh(a, n),
 *   percentile(sorted, q)} (float64, values only), resnetLive.lib["ml-matrix"] after
 *   loading, resnetLive.compute[name] (the registered pure functions), resnetLive.ready
 *   (a promise: every explorer on the page mounted), resnetLive.mounted[name] ({redraw(state),
 *   state(), reset()}).
 *
 * State in the URL: the fragment "#<name>.<key>=<value>&..." sets controls on load and is
 * rewritten (history.replaceState) on every change, so a link restores a setting.
 */
(function () {
  "use strict";
  if (window.resnetLive) { return; }
  var here = document.currentScript && document.currentScript.src;
  var vendor = here ? here.substring(0, here.lastIndexOf("/") + 1) : "_static/vendor/";
  var liveData = vendor.replace(/vendor\/$/, "live/");

  var LIBS = {"ml-matrix": {path: "ml-matrix/matrix.umd.js", global: "mlMatrix"}};

  function TooLarge(message) {
    var e = new Error(message);
    e.name = "TooLarge";
    return e;
  }

  var registry = {};
  var waiting = {};
  var live = {
    vendor: vendor,
    TooLarge: TooLarge,
    compute: {},
    lib: {},
    times: {},
    mounted: {},
    register: function (name, spec) {
      registry[name] = spec;
      live.compute[name] = spec.compute;
      if (waiting[name]) { waiting[name](spec); }
    },
  };
  window.resnetLive = live;

  // --- loading ------------------------------------------------------------------------------
  function loadScript(src) {
    return new Promise(function (resolve, reject) {
      var s = document.createElement("script");
      s.src = src;
      s.onload = resolve;
      s.onerror = function () { reject(new Error("could not load " + src)); };
      document.head.appendChild(s);
    });
  }

  var libPromises = {};
  function loadLib(name) {
    if (!LIBS[name]) { return Promise.reject(new Error("unknown library " + name)); }
    if (!libPromises[name]) {
      // The UMD builds register as anonymous AMD modules when an AMD loader is on the page;
      // running their text with define shadowed makes them set their global in every case.
      libPromises[name] = fetch(vendor + LIBS[name].path).then(function (r) {
        if (!r.ok) { throw new Error("could not load " + LIBS[name].path + ": " + r.status); }
        return r.text();
      }).then(function (text) {
        /* jshint evil:true */
        new Function("define", "module", "exports", text + "\n//# sourceURL=" + vendor + LIBS[name].path)(
          undefined, undefined, undefined);
        live.lib[name] = window[LIBS[name].global];
      });
    }
    return libPromises[name];
  }
  live.loadLib = loadLib;

  function explorerSpec(name) {
    if (registry[name]) { return Promise.resolve(registry[name]); }
    var p = new Promise(function (resolve) { waiting[name] = resolve; });
    return loadScript(vendor + "live-" + name + ".js").then(function () { return p; });
  }

  live.data = function (name) {
    return fetch(liveData + name + ".data.json").then(function (r) {
      if (!r.ok) { throw new Error("could not load the data of " + name + ": " + r.status); }
      return r.json();
    });
  };

  // --- state in the URL fragment ------------------------------------------------------------
  function fragmentState(name) {
    var out = {};
    var h = window.location.hash.replace(/^#/, "");
    if (!h) { return out; }
    new URLSearchParams(h).forEach(function (v, k) {
      if (k.indexOf(name + ".") === 0) { out[k.substring(name.length + 1)] = v; }
    });
    return out;
  }

  function writeFragment(name, state, defaults) {
    var h = window.location.hash.replace(/^#/, "");
    var params = new URLSearchParams(h.indexOf("=") >= 0 ? h : "");
    Object.keys(state).forEach(function (k) {
      if (String(state[k]) === String(defaults[k])) { params.delete(name + "." + k); }
      else { params.set(name + "." + k, state[k]); }
    });
    var s = params.toString();
    history.replaceState(null, "", s ? "#" + s : window.location.pathname + window.location.search);
  }

  // --- controls -----------------------------------------------------------------------------
  function parseValue(c, raw) {
    if (c.type === "range") {
      var v = Number(raw);
      if (!isFinite(v)) { return c.value; }
      v = Math.min(c.max, Math.max(c.min, v));
      var k = Math.round((v - c.min) / c.step);
      return Number((c.min + k * c.step).toFixed(10));
    }
    var ok = c.options.some(function (o) { return String(o[0]) === String(raw); });
    return ok ? (typeof c.value === "number" ? Number(raw) : String(raw)) : c.value;
  }

  function buildControls(name, root, controls, state, onChange) {
    var box = document.createElement("div");
    box.className = "rn-live-controls";
    var inputs = {};
    controls.forEach(function (c) {
      var id = "rn-live-" + name + "-" + c.key;
      var wrap = document.createElement("div");
      wrap.className = "rn-live-control";
      var label = document.createElement("label");
      label.setAttribute("for", id);
      label.textContent = c.label;
      var out = document.createElement("output");
      out.setAttribute("for", id);
      out.className = "rn-live-value";
      var input;
      if (c.type === "range") {
        input = document.createElement("input");
        input.type = "range";
        input.min = c.min; input.max = c.max; input.step = c.step;
      } else {
        input = document.createElement("select");
        c.options.forEach(function (o) {
          var opt = document.createElement("option");
          opt.value = o[0]; opt.textContent = o[1];
          input.appendChild(opt);
        });
      }
      input.id = id;
      input.dataset.key = c.key;
      input.value = state[c.key];
      var show = function () {
        var v = state[c.key];
        out.textContent = c.format ? c.format(v) : (c.type === "select" ? "" : String(v));
        input.setAttribute("aria-valuetext", out.textContent || String(v));
      };
      show();
      input.addEventListener("input", function () {
        state[c.key] = parseValue(c, input.value);
        show();
        onChange();
      });
      inputs[c.key] = {input: input, show: show};
      wrap.appendChild(label); wrap.appendChild(input); wrap.appendChild(out);
      box.appendChild(wrap);
    });
    var reset = document.createElement("button");
    reset.type = "button";
    reset.className = "rn-live-reset";
    reset.textContent = "Reset";
    box.appendChild(reset);
    root.appendChild(box);
    return {
      reset: reset,
      sync: function () {
        Object.keys(inputs).forEach(function (k) { inputs[k].input.value = state[k]; inputs[k].show(); });
      },
    };
  }

  // --- mounting -----------------------------------------------------------------------------
  function mount(root, spec) {
    var name = root.getAttribute("data-live");
    var defaults = {};
    (spec.controls || []).forEach(function (c) { defaults[c.key] = c.value; });
    var state = Object.assign({}, defaults);
    var fromUrl = fragmentState(name);
    (spec.controls || []).forEach(function (c) {
      if (c.key in fromUrl) { state[c.key] = parseValue(c, fromUrl[c.key]); }
    });
    root.classList.add("rn-live");
    var saved = Array.prototype.slice.call(root.childNodes);  // the no-JavaScript fallback
    saved.forEach(function (n) { if (n.nodeType === 1) { n.classList.add("rn-live-fallback"); } });
    var status = document.createElement("div");
    status.className = "rn-live-status";
    status.setAttribute("role", "status");
    var figure = document.createElement("div");
    figure.className = "rn-live-figure";
    var message = document.createElement("div");
    message.className = "rn-live-message";
    message.setAttribute("role", "alert");
    live.times[name] = [];
    var api = {
      state: state,
      figure: figure,
      status: function (text) { status.textContent = text; },
      tooLarge: function (text) { message.textContent = text; message.hidden = !text; },
    };
    var ui = buildControls(name, root, spec.controls || [], state, function () { redraw(); });
    root.appendChild(message);
    root.appendChild(figure);
    root.appendChild(status);
    message.hidden = true;
    var view = null;
    function redraw() {
      writeFragment(name, state, defaults);
      var t0 = performance.now();
      try {
        api.tooLarge("");
        view.draw(state);
      } catch (e) {
        if (e && e.name === "TooLarge") { api.tooLarge(e.message); }
        else { api.tooLarge("This setting could not be computed: " + (e && e.message)); throw e; }
      } finally {
        var ms = performance.now() - t0;
        live.times[name].push(ms);
        status.textContent = "redrawn in " + ms.toFixed(0) + " ms";
      }
      return live.times[name][live.times[name].length - 1];
    }
    ui.reset.addEventListener("click", function () {
      Object.assign(state, defaults);
      ui.sync();
      redraw();
    });
    var ready = Promise.all((spec.libs || []).map(loadLib))
      .then(function () { return spec.data ? live.data(name) : null; })
      .then(function (data) {
        api.data = data;
        view = spec.mount(root, api);
        live.mounted[name] = {
          redraw: function (s) { if (s) { Object.assign(state, s); ui.sync(); } return redraw(); },
          state: function () { return Object.assign({}, state); },
          reset: function () { ui.reset.click(); },
        };
        redraw();
        if (Object.keys(fromUrl).length) { root.scrollIntoView(); }
      });
    return ready;
  }

  // --- linear algebra ----------------------------------------------------------------------
  /* eigvalsh(a, n): the eigenvalues, ascending, of the symmetric n x n matrix a (row-major
     array, read-only). Householder tridiagonalisation and implicit QL, the algorithm of
     ml-matrix's EigenvalueDecomposition (JAMA's tred2/tql2) without the eigenvectors, which
     makes it about six times faster (n = 400: 70 ms against 520 ms in node 20). */
  function eigvalsh(A, n) {
    const a = Float64Array.from(A);
    const d = new Float64Array(n), e = new Float64Array(n);
    // tred1 on the lower triangle, rows i = n-1 .. 1 (JAMA's tred2 without the accumulation)
    for (let j = 0; j < n; j++) d[j] = a[(n - 1) * n + j];
    for (let i = n - 1; i > 0; i--) {
      let scale = 0, h = 0;
      for (let k = 0; k < i; k++) scale += Math.abs(d[k]);
      if (scale === 0) {
        e[i] = d[i - 1];
        for (let j = 0; j < i; j++) { d[j] = a[(i - 1) * n + j]; a[i * n + j] = 0; a[j * n + i] = 0; }
      } else {
        for (let k = 0; k < i; k++) { d[k] /= scale; h += d[k] * d[k]; }
        let f = d[i - 1];
        let g = Math.sqrt(h);
        if (f > 0) g = -g;
        e[i] = scale * g;
        h -= f * g;
        d[i - 1] = f - g;
        for (let j = 0; j < i; j++) e[j] = 0;
        for (let j = 0; j < i; j++) {
          f = d[j];
          a[j * n + i] = f;
          g = e[j] + a[j * n + j] * f;
          for (let k = j + 1; k <= i - 1; k++) { g += a[k * n + j] * d[k]; e[k] += a[k * n + j] * f; }
          e[j] = g;
        }
        f = 0;
        for (let j = 0; j < i; j++) { e[j] /= h; f += e[j] * d[j]; }
        const hh = f / (h + h);
        for (let j = 0; j < i; j++) e[j] -= hh * d[j];
        for (let j = 0; j < i; j++) {
          f = d[j]; g = e[j];
          for (let k = j; k <= i - 1; k++) a[k * n + j] -= (f * e[k] + g * d[k]);
          d[j] = a[(i - 1) * n + j];
          a[i * n + j] = 0;
        }
      }
      d[i] = h;
    }
    // diagonal of the tridiagonal matrix (JAMA keeps it in d after the accumulation loop)
    for (let j = 0; j < n; j++) d[j] = a[j * n + j];
    // tql1
    for (let i = 1; i < n; i++) e[i - 1] = e[i];
    e[n - 1] = 0;
    let f = 0, tst1 = 0;
    const eps = Math.pow(2, -52);
    for (let l = 0; l < n; l++) {
      tst1 = Math.max(tst1, Math.abs(d[l]) + Math.abs(e[l]));
      let m = l;
      while (m < n) { if (Math.abs(e[m]) <= eps * tst1) break; m++; }
      if (m > l) {
        let iter = 0;
        do {
          if (++iter > 60) throw new Error("eigvalsh: no convergence");
          let g = d[l];
          let p = (d[l + 1] - g) / (2 * e[l]);
          let r = Math.hypot(p, 1);
          if (p < 0) r = -r;
          d[l] = e[l] / (p + r);
          d[l + 1] = e[l] * (p + r);
          const dl1 = d[l + 1];
          let h = g - d[l];
          for (let i = l + 2; i < n; i++) d[i] -= h;
          f += h;
          p = d[m];
          let c = 1, c2 = c, c3 = c, el1 = e[l + 1], s = 0, s2 = 0;
          for (let i = m - 1; i >= l; i--) {
            c3 = c2; c2 = c; s2 = s;
            g = c * e[i]; h = c * p;
            r = Math.hypot(p, e[i]);
            e[i + 1] = s * r;
            s = e[i] / r; c = p / r;
            p = c * d[i] - s * g;
            d[i + 1] = h + s * (c * g + s * d[i]);
          }
          p = -s * s2 * c3 * el1 * e[l] / dl1;
          e[l] = s * p;
          d[l] = c * p;
        } while (Math.abs(e[l]) > eps * tst1);
      }
      d[l] += f;
      e[l] = 0;
    }
    return Array.from(d).sort((x, y) => x - y);
  }

  /* percentile(sorted, q): numpy's default ("linear") percentile of an ascending array. */
  function percentile(sorted, q) {
    var pos = (sorted.length - 1) * q / 100;
    var lo = Math.floor(pos), hi = Math.min(lo + 1, sorted.length - 1);
    return sorted[lo] + (sorted[hi] - sorted[lo]) * (pos - lo);
  }
  live.linalg = {eigvalsh: eigvalsh, percentile: percentile};

  /* format.g(x, digits): Python's format(x, ".<digits>g"), so that a page repeats the package's
   * messages to the digit. */
  function formatG(x, digits) {
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
  live.format = {g: formatG};

  // --- plotting helpers (canvas) -----------------------------------------------------------
  function canvasFor(parent, cls, cssWidth, cssHeight) {
    var c = parent.querySelector("canvas." + cls);
    if (!c) {
      c = document.createElement("canvas");
      c.className = cls;
      parent.appendChild(c);
    }
    var ratio = window.devicePixelRatio || 1;
    c.style.width = cssWidth + "px";
    c.style.height = cssHeight + "px";
    c.width = Math.round(cssWidth * ratio);
    c.height = Math.round(cssHeight * ratio);
    var ctx = c.getContext("2d");
    ctx.setTransform(ratio, 0, 0, ratio, 0, 0);
    return ctx;
  }

  function diverging(v) {  // v in [-1, 1] -> blue (negative) / white (0) / red (positive)
    var t = Math.max(-1, Math.min(1, v));
    var a = Math.abs(t);
    var end = t < 0 ? [33, 102, 172] : [178, 24, 43];
    return end.map(function (e) { return Math.round(255 * (1 - a) + e * a); });
  }

  var lutCache = null;
  function palette() {  // 256 colours of diverging(), RGBA, index 0 = -1, 255 = +1
    if (!lutCache) {
      lutCache = new Uint8ClampedArray(4 * 256);
      for (var k = 0; k < 256; k++) {
        var c = diverging(k / 127.5 - 1);
        lutCache.set([c[0], c[1], c[2], 255], 4 * k);
      }
    }
    return lutCache;
  }

  var plot = {
    /* heatmap(parent, {rows, cols, value(i, j), scale, size, grid, unitGrid}) draws one pixel
       block per entry (square matrices) on a canvas of `size` css px, colours value/scale on a
       diverging map (blue < 0 < red), thin lines every `grid` entries and thick lines every
       `unitGrid` entries (lines closer than 2 px are left out). */
    heatmap: function (parent, o) {
      var size = o.size || 320;
      var ctx = canvasFor(parent, o.cls || "rn-live-heatmap", size, size);
      var w = o.cols, h = o.rows;
      var img = ctx.createImageData(w, h), px = img.data;
      var s = o.scale > 0 ? o.scale : 1, lut = palette();
      for (var i = 0; i < h; i++) {
        for (var j = 0; j < w; j++) {
          var t = o.value(i, j) / s;
          var c = 4 * Math.round(127.5 * (1 + (t > 1 ? 1 : t < -1 ? -1 : t)));
          var k = 4 * (i * w + j);
          px[k] = lut[c]; px[k + 1] = lut[c + 1]; px[k + 2] = lut[c + 2]; px[k + 3] = 255;
        }
      }
      var tmp = document.createElement("canvas");
      tmp.width = w; tmp.height = h;
      tmp.getContext("2d").putImageData(img, 0, 0);
      ctx.imageSmoothingEnabled = false;
      ctx.clearRect(0, 0, size, size);
      ctx.drawImage(tmp, 0, 0, size, size);
      [[o.grid, "rgba(0,0,0,0.25)", 1], [o.unitGrid, "rgba(0,0,0,0.8)", 2]].forEach(function (g) {
        if (!g[0] || g[0] >= w || size * g[0] / w < 2) { return; }
        ctx.strokeStyle = g[1];
        ctx.lineWidth = g[2];
        for (var k = g[0]; k < w; k += g[0]) {
          var x = Math.round(k * size / w) + 0.5;
          ctx.beginPath(); ctx.moveTo(x, 0); ctx.lineTo(x, size); ctx.stroke();
          ctx.beginPath(); ctx.moveTo(0, x); ctx.lineTo(size, x); ctx.stroke();
        }
      });
      ctx.lineWidth = 1;
      ctx.strokeStyle = "#444";
      ctx.strokeRect(0.5, 0.5, size - 1, size - 1);
      return ctx.canvas;
    },
    /* lines(parent, {series: [{x: [], y: [], label, color, points}], xlabel, ylabel, logy,
       width, height, title, xmin, xmax, ymin, legendAt: [fx, fy], empty}) draws lines (or
       points) with axes and a legend (at fractions fx, fy of the plot area; default top
       right). Non-finite points are skipped; with no point at all it writes `empty`. */
    lines: function (parent, o) {
      var W = o.width || 360, H = o.height || 240;
      var ctx = canvasFor(parent, o.cls || "rn-live-lines", W, H);
      var m = {l: 52, r: 10, t: o.title ? 20 : 8, b: 36};
      var tr = o.logy ? function (v) { return v > 0 ? Math.log10(v) : NaN; } : function (v) { return v; };
      var xs = [], ys = [];
      o.series.forEach(function (s) {
        s.x.forEach(function (x, i) {
          var y = tr(s.y[i]);
          if (isFinite(x) && isFinite(y)) { xs.push(x); ys.push(y); }
        });
      });
      ctx.clearRect(0, 0, W, H);
      ctx.font = "11px sans-serif";
      ctx.fillStyle = "#222";
      if (o.title) { ctx.fillText(o.title, m.l, 13); }
      if (!xs.length) {
        ctx.strokeStyle = "#ccc"; ctx.strokeRect(m.l, m.t, W - m.l - m.r, H - m.t - m.b);
        ctx.textAlign = "center"; ctx.fillText(o.empty || "", (m.l + W - m.r) / 2, H / 2);
        return ctx.canvas;
      }
      var x0 = o.xmin !== undefined ? o.xmin : Math.min.apply(null, xs);
      var x1 = o.xmax !== undefined ? o.xmax : Math.max.apply(null, xs);
      var y0 = Math.min.apply(null, ys), y1 = Math.max.apply(null, ys);
      if (o.ymin !== undefined) { y0 = tr(o.ymin); }
      if (x1 === x0) { x1 = x0 + 1; }
      if (y1 - y0 < 1e-12 * Math.max(1, Math.abs(y1))) { var pad = o.logy ? 0.5 : Math.max(1e-3, Math.abs(y1) * 0.1); y0 -= pad; y1 += pad; }
      var X = function (x) { return m.l + (x - x0) / (x1 - x0) * (W - m.l - m.r); };
      var Y = function (y) { return H - m.b - (y - y0) / (y1 - y0) * (H - m.t - m.b); };
      ctx.strokeStyle = "#888"; ctx.lineWidth = 1;
      ctx.beginPath(); ctx.moveTo(m.l, m.t); ctx.lineTo(m.l, H - m.b); ctx.lineTo(W - m.r, H - m.b); ctx.stroke();
      ctx.fillStyle = "#333";
      ctx.textAlign = "center";
      ticks(x0, x1, 5).forEach(function (t) {
        ctx.fillText(fmt(t), X(t), H - m.b + 13);
      });
      if (o.xlabel) { ctx.fillText(o.xlabel, (m.l + W - m.r) / 2, H - 6); }
      ctx.textAlign = "right";
      (o.logy ? logTicks(y0, y1) : ticks(y0, y1, 5)).forEach(function (t) {
        ctx.fillText(o.logy ? fmt(Math.pow(10, t)) : fmt(t), m.l - 4, Y(t) + 4);
      });
      if (o.ylabel) {
        ctx.save(); ctx.translate(11, (m.t + H - m.b) / 2); ctx.rotate(-Math.PI / 2);
        ctx.textAlign = "center"; ctx.fillText(o.ylabel, 0, 0); ctx.restore();
      }
      o.series.forEach(function (s, k) {
        ctx.strokeStyle = ctx.fillStyle = s.color || "#333";
        ctx.lineWidth = 1.6;
        ctx.beginPath();
        var started = false;
        s.x.forEach(function (x, i) {
          var y = tr(s.y[i]);
          if (!isFinite(x) || !isFinite(y)) { started = false; return; }
          if (started) { ctx.lineTo(X(x), Y(y)); } else { ctx.moveTo(X(x), Y(y)); started = true; }
        });
        if (!s.points) { ctx.stroke(); }
        if (s.points) {
          s.x.forEach(function (x, i) {
            var y = tr(s.y[i]);
            if (isFinite(x) && isFinite(y)) { ctx.beginPath(); ctx.arc(X(x), Y(y), 2.2, 0, 2 * Math.PI); ctx.fill(); }
          });
        }
        if (s.label) {
          var lx = o.legendAt ? m.l + o.legendAt[0] * (W - m.l - m.r) : W - m.r - 120;
          var ly = o.legendAt ? m.t + o.legendAt[1] * (H - m.t - m.b) : m.t + 4;
          ctx.textAlign = "left";
          ctx.fillRect(lx, ly + 14 * k, 10, 3);
          ctx.fillText(s.label, lx + 14, ly + 5 + 14 * k);
        }
      });
      return ctx.canvas;
    },
  };
  function fmt(v) {
    var a = Math.abs(v);
    if (a !== 0 && (a >= 1e4 || a < 1e-2)) { return v.toExponential(0); }
    return String(Number(v.toPrecision(3)));
  }
  function ticks(a, b, n) {
    var step = Math.pow(10, Math.floor(Math.log10((b - a) / n)));
    [1, 2, 5, 10].some(function (k) { if ((b - a) / (step * k) <= n) { step *= k; return true; } return false; });
    var out = [];
    for (var t = Math.ceil(a / step) * step; t <= b + 1e-9 * step; t += step) { out.push(Number(t.toPrecision(12))); }
    return out;
  }
  function logTicks(a, b) {
    var out = [];
    var stepd = Math.max(1, Math.ceil((b - a) / 5));
    for (var t = Math.ceil(a); t <= Math.floor(b); t += stepd) { out.push(t); }
    if (!out.length) { return ticks(a, b, 3); }
    return out;
  }
  live.plot = plot;

  // --- start ----------------------------------------------------------------------------------
  function start() {
    var roots = document.querySelectorAll("[data-live]");
    live.ready = Promise.all(Array.prototype.map.call(roots, function (root) {
      var name = root.getAttribute("data-live");
      return explorerSpec(name).then(function (spec) { return mount(root, spec); }).catch(function (e) {
        var msg = document.createElement("div");
        msg.className = "rn-live-message";
        msg.setAttribute("role", "alert");
        msg.textContent = "This explorer could not start: " + (e && e.message);
        root.appendChild(msg);
        throw e;
      });
    }));
    return live.ready;
  }
  if (document.readyState === "loading") {
    live.ready = new Promise(function (resolve, reject) {
      document.addEventListener("DOMContentLoaded", function () { start().then(resolve, reject); });
    });
  } else {
    start();
  }
})();
