// Enforcement forms: progressive enhancement only (the server is idempotent on its own).
(function () {
  "use strict";
  document.addEventListener("DOMContentLoaded", function () {
    // One tap = one submit: disable the button after the first submit of a form.
    document.querySelectorAll("button[data-once]").forEach(function (button) {
      var form = button.form;
      if (!form) { return; }
      form.addEventListener("submit", function () {
        window.setTimeout(function () {
          button.disabled = true;
          button.setAttribute("aria-busy", "true");
          button.textContent = "Enviando…";
        }, 0);
      });
    });
    // "Agora" fills date and time with the phone's clock.
    var when = document.querySelector("input[type='datetime-local'][name='occurred_at']");
    if (when && !when.value) {
      var now = new Date();
      now.setMinutes(now.getMinutes() - now.getTimezoneOffset());
      when.value = now.toISOString().slice(0, 16);
    }
  });
})();
