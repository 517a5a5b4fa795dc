/*
 * Loaded after require.js and before the ipywidgets HTML manager (embed-amd.js). The manager
 * computes where its icon fonts live from the URL of its AMD modules, which require.js would
 * resolve relative to the page (e.g. book/@jupyter-widgets/...). Point those module names at
 * the local copy in _static/vendor/html-manager/ instead, wherever the page sits in the site.
 */
(function () {
  "use strict";
  var src = document.currentScript && document.currentScript.src;
  if (!src || typeof require === "undefined" || !require.config) { return; }
  var vendor = src.substring(0, src.lastIndexOf("/") + 1);
  require.config({
    paths: {
      "@jupyter-widgets/html-manager/dist": vendor + "html-manager"
    }
  });
})();
