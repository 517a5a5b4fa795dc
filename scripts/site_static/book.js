/*
 * Loaded on every page of the built site by scripts/offline_site.py (deferred).
 *
 * 1. Saved ipywidgets: on the static site no Python runs, so a slider that moves would change
 *    nothing. Each rendered widget view gets its controls disabled and one line above it that
 *    says how to make it live. The picture under it is the state saved at build time.
 * 2. Kernel-free charts: every <div class="rn-vega"> holds a Vega-Lite spec (written by
 *    resnet_nb.experiments.views) in a <script type="application/json">. If the page has any,
 *    vega, vega-lite and vega-embed are loaded from _static/vendor/ (only on such pages) and
 *    each chart is rendered in the browser, with its controls.
 */
(function () {
  "use strict";
  var here = document.currentScript && document.currentScript.src;
  var vendor = here ? here.substring(0, here.lastIndexOf("/") + 1) : "_static/vendor/";
  document.documentElement.classList.add("rn-static");

  // --- 1. saved widgets: disabled, with a note ------------------------------------------
  var NOTE = "These controls run Python: on this static page they are switched off and the "
    + "picture shows the state saved when the book was built. To use them, open this chapter "
    + "with a live kernel (JupyterLab, Binder or Colab: the rocket button at the top of the page).";
  var CONTROLS = "input, select, textarea, button, .noUi-target, [contenteditable]";

  function disableView(view) {
    view.querySelectorAll(CONTROLS).forEach(function (el) {
      if (el.matches("[contenteditable]")) { el.setAttribute("contenteditable", "false"); }
      el.setAttribute("disabled", "");
      el.setAttribute("aria-disabled", "true");
      el.setAttribute("tabindex", "-1");
    });
  }

  var MEDIA = "img, svg, canvas, mjx-container, input, select, button, textarea, .noUi-target, table";
  function showsNothing(el) {
    return (el.innerText || "").trim() === "" && !el.querySelector(MEDIA);
  }

  // The HTML manager renders each saved view into a <div class="widget-subarea"> placed
  // just before its <script type="application/vnd.jupyter.widget-view+json"> tag.
  function viewOf(script) {
    var next = script.previousElementSibling;
    if (next && (next.classList.contains("widget-subarea") || next.classList.contains("jupyter-widgets"))) {
      return next;
    }
    return null;
  }

  function markWidgets() {
    var scripts = document.querySelectorAll(
      'script[type="application/vnd.jupyter.widget-view+json"]');
    scripts.forEach(function (s) {
      var view = viewOf(s);
      if (!view || !(view.matches(".jupyter-widgets") || view.querySelector(".jupyter-widgets"))) {
        return;                        // not rendered yet: the observer calls again
      }
      // A progress bar closed at the end of its loop (tqdm, leave=False) is saved as a box
      // with nothing visible: it would leave a blank gap. Hide it, and its cell output if
      // nothing else in it shows.
      if (showsNothing(view)) {
        view.classList.add("rn-widget-empty");
        var output = view.closest(".cell_output");
        if (output && showsNothing(output)) { output.classList.add("rn-widget-empty"); }
        return;
      }
      if (view.classList.contains("rn-widget-static") || view.querySelector(CONTROLS) === null) {
        return;
      }
      disableView(view);
      view.classList.add("rn-widget-static");
      var p = document.createElement("p");
      p.className = "rn-widget-note";
      p.textContent = NOTE;
      view.parentElement.insertBefore(p, view);
    });
  }

  var pending = false;
  var observer = new MutationObserver(function () {
    if (pending) { return; }
    pending = true;
    window.requestAnimationFrame(function () { pending = false; markWidgets(); });
  });
  function startWidgets() {
    if (!document.querySelector('script[type="application/vnd.jupyter.widget-view+json"]')) {
      return;
    }
    markWidgets();
    observer.observe(document.body, {childList: true, subtree: true});
  }

  // --- 2. Vega-Lite charts ----------------------------------------------------------------
  // The UMD builds would register as anonymous AMD modules where require.js is on the page
  // (pages with widgets); running their text with `define` shadowed makes them set globals.
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

  function start() { startWidgets(); startCharts(); }
  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", start);
  } else {
    start();
  }
})();
