/*
 * The ipywidgets 8 HTML manager typesets widget labels with the MathJax 2 API
 * (MathJax.Hub.Queue(["Typeset", MathJax.Hub, element])). Jupyter Book 1 loads MathJax 3,
 * which has no Hub, so every labelled widget would throw "Cannot read properties of
 * undefined (reading 'Queue')". This file is loaded before anything else on every page. It
 * watches assignments to window.MathJax (the inline configuration object first, MathJax 3
 * itself later) and gives each object a small Hub whose Queue forwards "Typeset" jobs to
 * MathJax 3's typesetPromise once MathJax has started.
 */
(function () {
  "use strict";
  var current = window.MathJax;

  function typesetWhenReady(element) {
    var mj = current;
    if (mj && mj.startup && mj.startup.promise && typeof mj.typesetPromise === "function") {
      mj.startup.promise
        .then(function () { return mj.typesetPromise(element ? [element] : undefined); })
        .catch(function (err) { console.warn("MathJax typeset of a widget label failed:", err); });
    } else {
      // MathJax 3 has not replaced the configuration object yet: try again shortly.
      setTimeout(function () { typesetWhenReady(element); }, 100);
    }
  }

  var hub = {
    Queue: function () {
      for (var i = 0; i < arguments.length; i++) {
        var job = arguments[i];
        if (Array.isArray(job) && job[0] === "Typeset") {
          typesetWhenReady(job[2]);
        } else if (typeof job === "function") {
          job();
        }
      }
    }
  };

  function withHub(value) {
    if (value && typeof value === "object" && !value.Hub) {
      try { value.Hub = hub; } catch (e) { /* a frozen object: leave it */ }
    }
    return value;
  }

  Object.defineProperty(window, "MathJax", {
    configurable: true,
    enumerable: true,
    get: function () { return current; },
    set: function (value) { current = withHub(value); }
  });
  withHub(current);
})();
