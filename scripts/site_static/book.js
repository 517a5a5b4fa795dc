/*
 * Loaded on every page of the built site by scripts/offline_site.py (deferred).
 *
 * Saved ipywidgets need no script: scripts/offline_site.py replaces each by a snapshot (its
 * settings and figures) when the book is built.
 * Kernel-free charts: every <div class="rn-vega"> holds a Vega-Lite spec (written by
 *    resnet_nb.experiments.views) in a <script type="application/json">. If the page has any,
 *    vega, vega-lite and vega-embed are loaded from _static/vendor/ (only on such pages) and
 *    each chart is rendered in the browser, with its controls.
 * Live explorers: a page with an element carrying data-live="<name>" loads vendor/live.js,
 *    which mounts the explorer (see the header of live.js).
 */
(function () {
  "use strict";
  var here = document.currentScript && document.currentScript.src;
  var vendor = here ? here.substring(0, here.lastIndexOf("/") + 1) : "_static/vendor/";
  document.documentElement.classList.add("rn-static");

  // --- Vega-Lite charts ----------------------------------------------------------------
  // The UMD builds register as anonymous AMD modules wherever an AMD loader is on the page;
  // running their text with `define` shadowed makes them set globals in every case.
  function loadGlobal(path) {
    return fetch(vendor + path).then(function (r) {
      if (!r.ok) { throw new Error("could not load " + path + ": " + r.status); }
      return r.text();
    }).then(function (text) {
      /* jshint evil:true */
      new Function("define", "module", "exports", text + "\n//# sourceURL=" + vendor + path)(
        undefined, undefined, undefined);
    });
  }

  var vegaReady = null;
  function loadVega() {
    if (!vegaReady) {
      vegaReady = loadGlobal("vega/vega.min.js")
        .then(function () { return loadGlobal("vega-lite/vega-lite.min.js"); })
        .then(function () { return loadGlobal("vega-embed/vega-embed.min.js"); });
    }
    return vegaReady;
  }

  function startCharts() {
    var charts = document.querySelectorAll("div.rn-vega");
    if (!charts.length) { return; }
    loadVega().then(function () {
      charts.forEach(function (div) {
        var specTag = div.querySelector('script[type="application/json"]');
        var target = div.querySelector(".rn-vega-chart");
        if (!specTag || !target) { return; }
        var spec = JSON.parse(specTag.textContent);
        window.vegaEmbed(target, spec, {actions: false, renderer: "svg"})
          .then(function () { div.classList.add("rn-vega-ready"); })
          .catch(function (err) {
            div.classList.add("rn-vega-failed");
            console.error("chart failed to render: " + err);
          });
      });
    }).catch(function (err) { console.error(String(err)); });
  }

  // --- live explorers: pages with a [data-live] element load live.js (see its header) --------
  function startLive() {
    if (!document.querySelector("[data-live]")) { return; }
    var s = document.createElement("script");
    s.src = vendor + "live.js";
    document.head.appendChild(s);
  }

  function start() { startCharts(); startLive(); }
  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", start);
  } else {
    start();
  }
})();
