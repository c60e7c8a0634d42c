// Licensing pages: small helpers that never block typing or pasting.
(function () {
  "use strict";
  // Plate: upper-case as you type (ABC1D23 or ABC-1234).
  document.querySelectorAll('input[name="plate"], input[name$="-plate"]').forEach(function (input) {
    input.setAttribute("autocapitalize", "characters");
    input.addEventListener("input", function () {
      var pos = input.selectionStart;
      input.value = input.value.toUpperCase();
      if (pos !== null) { input.setSelectionRange(pos, pos); }
    });
  });
  // Document review: the reason becomes required when "Recusar" is chosen.
  document.querySelectorAll("form.review-form").forEach(function (form) {
    var reason = form.querySelector('input[name$="-reason"]');
    if (!reason) { return; }
    form.querySelectorAll('input[type="radio"]').forEach(function (radio) {
      radio.addEventListener("change", function () {
        var refusing = radio.checked && radio.value === "0";
        reason.required = refusing;
        reason.setAttribute("aria-required", refusing ? "true" : "false");
        if (refusing) { reason.focus(); }
      });
    });
  });
  // File inputs: tell the size before sending, so a too-large scan is caught early.
  document.querySelectorAll('input[type="file"][name="file"]').forEach(function (input) {
    input.addEventListener("change", function () {
      var note = input.parentNode.querySelector(".file-note");
      if (!note) {
        note = document.createElement("div");
        note.className = "file-note form-text";
        note.setAttribute("aria-live", "polite");
        input.parentNode.appendChild(note);
      }
      var f = input.files && input.files[0];
      note.textContent = f ? f.name + " — " + Math.max(1, Math.round(f.size / 1024)) + " KB" : "";
    });
  });
})();
