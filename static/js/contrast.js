// "Alto contraste": the person's choice, kept in this browser (localStorage), is applied to
// <html> before the page is drawn (this file is loaded in <head>, not deferred), then the
// accessibility bar's button switches it. Without JavaScript the button stays hidden; the
// browser's own forced colours (Windows high contrast) still apply.
(function () {
  "use strict";
  var KEY = "portal-alto-contraste";
  var root = document.documentElement;
  var saved = null;
  try { saved = window.localStorage.getItem(KEY); } catch (e) { saved = null; }  // storage may be blocked
  if (saved === "1") { root.classList.add("alto-contraste"); }
  document.addEventListener("DOMContentLoaded", function () {
    document.querySelectorAll("button.contrast-toggle").forEach(function (button) {
      button.hidden = false;
      button.setAttribute("aria-pressed", root.classList.contains("alto-contraste") ? "true" : "false");
      button.addEventListener("click", function () {
        var on = root.classList.toggle("alto-contraste");
        button.setAttribute("aria-pressed", on ? "true" : "false");
        try { window.localStorage.setItem(KEY, on ? "1" : "0"); } catch (e) { /* kept for this page only */ }
      });
    });
  });
})();
