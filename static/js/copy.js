// Copy buttons (progressive enhancement): <button hidden data-copy-target="ID" data-copy-status="ID">
// copies the value of the read-only field ID and says so in the live region. Without JavaScript
// the buttons stay hidden and the field can be selected and copied by hand.
(function () {
  "use strict";
  function say(button, text) {
    var out = document.getElementById(button.getAttribute("data-copy-status") || "");
    if (out) { out.textContent = text; }
  }
  function fallback(button, field) {
    field.focus();
    field.select();
    var ok = false;
    try { ok = document.execCommand("copy"); } catch (e) { ok = false; }
    say(button, ok ? "Código copiado." : "Código selecionado: copie com Ctrl+C ou pressione e segure.");
  }
  document.addEventListener("DOMContentLoaded", function () {
    document.querySelectorAll("button[data-copy-target]").forEach(function (button) {
      button.hidden = false;
      button.addEventListener("click", function () {
        var field = document.getElementById(button.getAttribute("data-copy-target"));
        if (!field) { return; }
        if (navigator.clipboard && window.isSecureContext) {
          navigator.clipboard.writeText(field.value).then(function () { say(button, "Código copiado."); },
                                                           function () { fallback(button, field); });
        } else {
          fallback(button, field);
        }
      });
    });
  });
})();
