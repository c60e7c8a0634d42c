// Progressive enhancement only: every page works without JavaScript.
(function () {
  "use strict";
  // eMAG access keys (Alt+1 content, Alt+2 menu, Alt+3 search, Alt+4 footer; the links of the
  // accessibility bar carry accesskey="1…4"). The browser's own access keys differ between
  // browsers (Alt+Shift in Firefox) and fire on a character event some key paths never send,
  // so the same keys are also read here: the page jumps to the region and the focus lands on
  // it, whichever path ran (doing it twice lands on the same element).
  var jump = function (hash) {
    var target = document.getElementById(hash.slice(1));
    if (!target) { return false; }
    if (location.hash !== hash) { history.pushState(null, "", hash); }
    target.focus();
    return true;
  };
  document.addEventListener("keydown", function (e) {
    if (!e.altKey || e.ctrlKey || e.metaKey || !/^Digit[1-4]$/.test(e.code || "")) { return; }
    var link = document.querySelector('.a11y-bar a[accesskey="' + e.code.slice(5) + '"]');
    if (link && jump(link.hash)) { e.preventDefault(); }
  });
  document.addEventListener("click", function (e) {
    var link = e.target.closest ? e.target.closest(".a11y-bar a[accesskey]") : null;
    if (link && jump(link.hash)) { e.preventDefault(); }
  });
  document.addEventListener("DOMContentLoaded", function () {
    // Move focus to the error summary so screen readers announce it.
    var summary = document.querySelector("[data-autofocus]");
    // After a send that returns to one item (#doc-…), the page stays at the item: announce the
    // summary without scrolling away from it.
    if (summary) { summary.focus(location.hash ? {preventScroll: true} : undefined); }
    // Gentle masks that never block paste: format CPF and plates on blur.
    document.querySelectorAll("input[data-mask='cpf']").forEach(function (el) {
      el.addEventListener("blur", function () {
        var d = el.value.replace(/\D/g, "");
        if (d.length === 11) { el.value = d.slice(0, 3) + "." + d.slice(3, 6) + "." + d.slice(6, 9) + "-" + d.slice(9); }
      });
    });
    document.querySelectorAll("input[data-mask='plate']").forEach(function (el) {
      el.addEventListener("blur", function () { el.value = el.value.toUpperCase().replace(/\s/g, ""); });
    });
    // Tables marked .table-stack become one card per row on a phone (see portal.css):
    // each cell gets its column header as data-label.
    document.querySelectorAll("table.table-stack").forEach(function (table) {
      var heads = Array.prototype.map.call(table.querySelectorAll("thead th"), function (th) {
        return th.textContent.replace(/\s+/g, " ").trim();
      });
      table.querySelectorAll("tbody tr").forEach(function (tr) {
        if (tr.cells.length !== heads.length) { return; }
        Array.prototype.forEach.call(tr.cells, function (cell, i) {
          if (heads[i] && !cell.hasAttribute("data-label")) { cell.setAttribute("data-label", heads[i]); }
        });
      });
      table.classList.add("is-labelled");
    });
  });
})();
