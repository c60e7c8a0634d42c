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
  document.querySelectorAll('input[type="file"]').forEach(function (input) {
    input.addEventListener("change", function () {
      var note = input.parentNode.querySelector(".file-note");
      if (!note) {
        note = document.createElement("div");
        note.className = "file-note form-text";
        note.setAttribute("aria-live", "polite");
        input.parentNode.appendChild(note);
      }
      var f = input.files && input.files[0];
      note.textContent = f ? f.name + " — " + Math.max(1, Math.round(f.size / 1024)) + " KB (ainda não enviado)" : "";
    });
  });
  // Clerk's document previews: fetched only when the clerk opens one (the access log then
  // records that a person consulted it); nothing is loaded for closed items.
  document.querySelectorAll("details.doc-open[data-src]").forEach(function (box) {
    box.addEventListener("toggle", function () {
      if (!box.open || box.querySelector("iframe, img")) { return; }
      var el;
      if (box.getAttribute("data-kind") === "pdf") {
        el = document.createElement("iframe");
        el.className = "doc-frame";
        el.title = box.getAttribute("data-title");
      } else {
        el = document.createElement("img");
        el.className = "doc-preview mt-2";
        el.alt = "Documento: " + box.getAttribute("data-title");
      }
      el.src = box.getAttribute("data-src");
      box.appendChild(el);
    });
  });
  // One upload form for every item (form="docs-upload"): a file chosen and not sent is never
  // dropped silently. Leaving by a link warns first, in the page, naming the items (a second
  // click leaves); closing or reloading the tab asks the browser's own question.
  var uploadForm = document.getElementById("docs-upload");
  if (uploadForm) {
    var sending = false;
    var warnedLink = null;
    var warning = uploadForm.querySelector(".unsent-warning");
    var chosen = function () {
      return Array.prototype.filter.call(document.querySelectorAll('input[type="file"][form="docs-upload"]'),
        function (i) { return i.files && i.files.length; });
    };
    var warn = function (text) {
      warning.textContent = text;
      warning.hidden = false;
      warning.setAttribute("tabindex", "-1");
      warning.scrollIntoView({block: "center"});
      warning.focus({preventScroll: true});
    };
    uploadForm.addEventListener("submit", function (e) {
      if (!chosen().length) {
        e.preventDefault();
        warn("Escolha ao menos um arquivo antes de enviar.");
        return;
      }
      sending = true;
    });
    window.addEventListener("beforeunload", function (e) {
      if (!sending && chosen().length) { e.preventDefault(); e.returnValue = ""; }
    });
    document.addEventListener("click", function (e) {
      var link = e.target.closest ? e.target.closest("a[href]") : null;
      if (!link || sending || (link.getAttribute("href") || "").charAt(0) === "#") { return; }
      var pending = chosen();
      if (!pending.length) { return; }
      if (warnedLink === link) { sending = true; return; }  // asked once: leave without sending
      e.preventDefault();
      warnedLink = link;
      var names = pending.map(function (i) { return "“" + i.getAttribute("data-item") + "”"; }).join("; ");
      warn((pending.length === 1 ? "Você escolheu um arquivo e ainda não o enviou: " :
        "Você escolheu " + pending.length + " arquivos e ainda não os enviou: ") + names +
        ". Clique em “Enviar os arquivos escolhidos”, ou clique de novo no link para sair sem enviar.");
    });
  }
})();
