// Fare calculator: instant answers from /api/v1/fares/quote/. The page works without this
// script (the form is a plain GET answered by the server).
(function () {
  "use strict";
  var FIELDS = ["modality", "km", "date", "time", "waiting_minutes", "line", "zone", "student"];

  function brl(value) {
    var n = Number(value);
    return "R$ " + n.toLocaleString("pt-BR", { minimumFractionDigits: 2, maximumFractionDigits: 2 });
  }

  function el(tag, attrs, text) {
    var node = document.createElement(tag);
    Object.keys(attrs || {}).forEach(function (k) { node.setAttribute(k, attrs[k]); });
    if (text !== undefined) { node.textContent = text; }
    return node;
  }

  function clearErrors(form) {
    form.querySelectorAll("[data-js-error]").forEach(function (n) { n.remove(); });
    form.querySelectorAll("[aria-invalid='true']").forEach(function (input) {
      input.removeAttribute("aria-invalid");
      input.classList.remove("is-invalid");
    });
  }

  function showErrors(form, errors) {
    Object.keys(errors).forEach(function (name) {
      var target = name === "at" ? "date" : name;
      var input = form.querySelector("[name='" + target + "']");
      if (!input) { return; }
      var id = input.id + "-jserror";
      var box = el("div", { id: id, "class": "invalid-feedback d-block", "data-js-error": "1" });
      box.textContent = errors[name].join(" ");
      input.parentNode.insertBefore(box, input);
      input.setAttribute("aria-invalid", "true");
      input.classList.add("is-invalid");
      var described = (input.getAttribute("aria-describedby") || "").split(" ").filter(function (x) { return x && x !== id; });
      described.push(id);
      input.setAttribute("aria-describedby", described.join(" "));
    });
  }

  function render(region, data) {
    region.textContent = "";
    region.appendChild(el("h2", { id: "result-title", "class": "h4" }, "Valor da corrida"));
    var total = el("p", { "class": "fare-total" });
    total.appendChild(el("span", { "class": "visually-hidden" }, "Total: "));
    total.appendChild(document.createTextNode(brl(data.total)));
    if (data.is_maximum) { total.appendChild(el("span", { "class": "fare-max" }, " (valor máximo)")); }
    region.appendChild(total);
    var table = el("table", { "class": "table table-sm fare-lines" });
    table.appendChild(el("caption", {}, "Como o valor foi calculado"));
    var thead = el("thead");
    var hr = el("tr");
    hr.appendChild(el("th", { scope: "col" }, "Parte do preço"));
    hr.appendChild(el("th", { scope: "col", "class": "text-end" }, "Valor"));
    thead.appendChild(hr);
    table.appendChild(thead);
    var tbody = el("tbody");
    data.components.forEach(function (c) {
      var tr = el("tr");
      tr.appendChild(el("td", {}, c.label));
      tr.appendChild(el("td", { "class": "text-end" }, brl(c.amount)));
      tbody.appendChild(tr);
    });
    table.appendChild(tbody);
    var tfoot = el("tfoot");
    var fr = el("tr");
    fr.appendChild(el("th", { scope: "row" }, "Total"));
    fr.appendChild(el("td", { "class": "text-end fw-bold" }, brl(data.total)));
    tfoot.appendChild(fr);
    table.appendChild(tfoot);
    region.appendChild(table);
    (data.notes || []).forEach(function (note) { region.appendChild(el("p", { "class": "small" }, note)); });
    var eff = data.tariff.effective_from.split("-").reverse().join("/");
    var source = el("p", { "class": "small mb-0" });
    source.appendChild(document.createTextNode("Tabela usada: "));
    source.appendChild(el("strong", {}, data.tariff.decree));
    source.appendChild(document.createTextNode(", em vigor desde " + eff + ". Base legal: " + data.legal_basis + "."));
    if (data.tariff.is_example) {
      source.appendChild(el("br"));
      source.appendChild(el("em", {}, "Atenção: valores de exemplo, ainda não confirmados pela Prefeitura."));
    }
    region.appendChild(source);
  }

  // The short total beside the inputs (phones); not a live region: #fare-result announces.
  function peek(total) {
    var box = document.getElementById("fare-peek");
    var value = document.getElementById("fare-peek-total");
    if (!box || !value) { return; }
    value.textContent = total === null ? "" : brl(total);
    box.hidden = total === null;
    // on a phone the field can sit at the bottom of the screen: bring the total just into view
    // (no animation, and nothing moves when it is already visible)
    if (!box.hidden && box.scrollIntoView) { box.scrollIntoView({block: "nearest", behavior: "instant"}); }
  }

  function toggleBus(form) {
    var modality = form.querySelector("[name='modality']");
    form.querySelectorAll("[data-only-for]").forEach(function (box) {
      box.hidden = !modality || modality.value !== box.getAttribute("data-only-for");
    });
  }

  document.addEventListener("DOMContentLoaded", function () {
    var form = document.getElementById("fare-form");
    var region = document.getElementById("fare-result");
    if (!form || !region || !window.fetch) { return; }
    var url = form.getAttribute("data-quote-url");
    var timer = null;
    var seq = 0;

    function query() {
      var params = new URLSearchParams();
      FIELDS.forEach(function (name) {
        var input = form.querySelector("[name='" + name + "']");
        if (!input) { return; }
        if (input.type === "checkbox") { params.set(name, input.checked ? "true" : "false"); }
        else if (input.value !== "") { params.set(name, input.value); }
      });
      if (params.get("modality") !== "bus") { params.delete("line"); }
      return params;
    }

    function update() {
      toggleBus(form);
      var params = query();
      var modality = params.get("modality");
      if (!params.get("km") && modality !== "bus") { return; }
      var mine = ++seq;
      fetch(url + "?" + params.toString(), { headers: { Accept: "application/json" } })
        .then(function (response) { return response.json().then(function (body) { return [response.status, body]; }); })
        .then(function (result) {
          if (mine !== seq) { return; }
          clearErrors(form);
          if (result[0] === 200) {
            render(region, result[1]);
            peek(result[1].total);
            if (window.history && window.history.replaceState) {
              window.history.replaceState(null, "", "?" + params.toString());
            }
          } else if (result[1] && result[1].errors) {
            showErrors(form, result[1].errors);
            peek(null);
            region.textContent = "";
            region.appendChild(el("h2", { id: "result-title", "class": "h4" }, "Valor da corrida"));
            region.appendChild(el("p", { "class": "text-muted" }, "Corrija o campo destacado para ver o valor."));
          }
        })
        .catch(function () { /* the Calcular button still works */ });
    }

    form.addEventListener("input", function () { clearTimeout(timer); timer = setTimeout(update, 250); });
    form.addEventListener("change", function () { clearTimeout(timer); timer = setTimeout(update, 50); });
    toggleBus(form);
  });
})();
// Publishing a table: only the values of the chosen structure are shown (all of them without JavaScript).
(function () {
  "use strict";
  document.addEventListener("DOMContentLoaded", function () {
    var select = document.getElementById("id_structure");
    var groups = document.querySelectorAll("fieldset.tariff-components[data-structure]");
    if (!select || !groups.length) { return; }
    function show() {
      groups.forEach(function (g) { g.hidden = g.getAttribute("data-structure") !== select.value; });
    }
    select.addEventListener("change", show);
    show();
  });
})();
