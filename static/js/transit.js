// Fare calculator of a bus line: answers as you type (the form also works without JavaScript).
(function () {
  "use strict";
  var form = document.querySelector("form[data-fare-api]");
  if (!form) { return; }
  var out = form.querySelector("[data-fare-result]");
  function isoDate(text) {
    var m = /^(\d{2})\/(\d{2})\/(\d{4})$/.exec((text || "").trim());
    if (m) { return m[3] + "-" + m[2] + "-" + m[1]; }
    return /^\d{4}-\d{2}-\d{2}$/.test((text || "").trim()) ? text.trim() : "";
  }
  function money(value) {
    var parts = Number(value).toFixed(2).split(".");
    return "R$ " + parts[0].replace(/\B(?=(\d{3})+(?!\d))/g, ".") + "," + parts[1];
  }
  function update() {
    var params = new URLSearchParams();
    var zone = form.querySelector("[name=zone]");
    var student = form.querySelector("[name=student]");
    var at = form.querySelector("[name=at]");
    if (zone && zone.value) { params.set("zone", zone.value); }
    params.set("student", student && student.checked ? "true" : "false");
    if (at && isoDate(at.value)) { params.set("at", isoDate(at.value)); }
    fetch(form.getAttribute("data-fare-api") + "?" + params.toString(), { headers: { "Accept": "application/json" } })
      .then(function (r) { return r.json().then(function (body) { return { ok: r.ok, body: body }; }); })
      .then(function (res) {
        out.textContent = "";
        var p = document.createElement("p");
        p.className = "mb-0" + (res.ok ? " fs-5" : " text-danger");
        if (res.ok) {
          p.textContent = "Passagem: " + money(res.body.amount) +
            (res.body.student ? " (estudante; inteira " + money(res.body.full_fare) + ")" : "") +
            " — " + res.body.legal_basis;
        } else {
          var errors = res.body.errors || {};
          var first = Object.keys(errors)[0];
          p.textContent = first ? errors[first][0] : "Não foi possível calcular.";
        }
        out.appendChild(p);
      })
      .catch(function () { /* the submit button still works */ });
  }
  form.addEventListener("change", update);
  form.addEventListener("input", function (e) { if (e.target.name === "at") { update(); } });
})();
