"""The form that publishes a tariff table: one field per value of the chosen structure (no
hand-written JSON), and a preview of the fares the table gives before it is published."""

from __future__ import annotations

from datetime import datetime, time
from decimal import Decimal, InvalidOperation

from django import forms

from tariffs import rules
from tariffs.forms import TariffPublishForm

WEEKDAYS = [(0, "segunda"), (1, "terça"), (2, "quarta"), (3, "quinta"), (4, "sexta"), (5, "sábado"), (6, "domingo")]
BAND_ROWS = 6
# (key, label, kind, required) per structure; the keys are rules.REQUIRED/MONEY_COMPONENTS'.
COMPONENTS: dict[str, list[tuple[str, str, str, bool]]] = {
    "base_plus_km": [("base", "Tarifa básica (R$)", "money", True),
                     ("per_km", "Quilômetro rodado (R$)", "money", True),
                     ("per_hour_waiting", "Hora de espera (R$)", "money", False)],
    "flags": [("base", "Bandeirada (R$)", "money", True),
              ("flag1_per_km", "Quilômetro na bandeira 1 (R$)", "money", True),
              ("flag2_per_km", "Quilômetro na bandeira 2 (R$)", "money", True),
              ("flag2_from", "Bandeira 2 a partir de (HH:MM)", "time", True),
              ("flag2_until", "Bandeira 2 até (HH:MM)", "time", True),
              ("flag2_weekdays", "Bandeira 2 o dia todo em", "weekdays", False),
              ("flag2_dates", "Bandeira 2 o dia todo nas datas (DD/MM, separadas por vírgula)", "dates", False),
              ("per_hour_waiting", "Hora de espera (R$)", "money", False)],
    "max_fare_bands": [("bands", "Faixas de distância", "bands", True)],
    "units": [("unit_name", "Nome da unidade (ex.: UT)", "text", True),
              ("unit_value", "Valor da unidade (R$)", "money", True),
              ("base_units", "Bandeirada (em unidades)", "number", True),
              ("per_km_units", "Quilômetro rodado (em unidades)", "number", True),
              ("per_hour_waiting_units", "Hora de espera (em unidades)", "number", False)],
    "zones": [("urban", "Passagem urbana (R$)", "money", True),
              ("rural", "Passagem rural (R$)", "money", False),
              ("student_discount", "Desconto de estudante (0,50 = metade)", "number", False)],
}
PREVIEW_KM = (Decimal(1), Decimal(3), Decimal(5), Decimal(10), Decimal(20))


def _number(raw: str) -> str:
    """'14,99' or '14.99' -> '14.99' (the table keeps decimal strings); ValueError if not a number."""
    text = raw.strip().replace("R$", "").replace(" ", "")
    if "," in text:
        text = text.replace(".", "").replace(",", ".")
    try:
        Decimal(text)
    except InvalidOperation:
        raise ValueError(raw) from None
    return text


def field_name(structure: str, key: str) -> str:
    return f"{structure}__{key}"


class TariffTableForm(TariffPublishForm):
    """TariffPublishForm with the components typed field by field."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        del self.fields["components"]
        self.fields["components"] = forms.CharField(required=False, widget=forms.HiddenInput)  # built in clean()
        for structure, items in COMPONENTS.items():
            for key, label, kind, _required in items:
                name = field_name(structure, key)
                if kind == "weekdays":
                    self.fields[name] = forms.TypedMultipleChoiceField(
                        label=label, choices=WEEKDAYS, coerce=int, required=False, widget=forms.CheckboxSelectMultiple)
                elif kind == "bands":
                    for i in range(1, BAND_ROWS + 1):
                        self.fields[f"{name}_{i}_up_to_km"] = forms.CharField(
                            label=f"Faixa {i}: até (km)", required=False, max_length=10,
                            widget=forms.TextInput(attrs={"inputmode": "decimal"}))
                        self.fields[f"{name}_{i}_max_fare"] = forms.CharField(
                            label=f"Faixa {i}: tarifa máxima (R$)", required=False, max_length=12,
                            widget=forms.TextInput(attrs={"inputmode": "decimal"}))
                else:
                    attrs = {"inputmode": "decimal"} if kind in ("money", "number") else {}
                    if kind == "time":
                        attrs = {"inputmode": "numeric", "placeholder": "HH:MM"}
                    self.fields[name] = forms.CharField(label=label, required=False, max_length=200,
                                                        widget=forms.TextInput(attrs=attrs))

    def structure_groups(self):
        """[(structure, label, [bound fields])] for the template (one fieldset each)."""
        labels = dict(self.fields["structure"].choices)
        return [(s, labels.get(s, s), [self[n] for n in self.fields if n.startswith(f"{s}__")])
                for s in COMPONENTS]

    def clean_components(self):
        return {}

    def _components(self, structure: str) -> dict:
        out: dict = {}
        for key, label, kind, required in COMPONENTS.get(structure, []):
            name = field_name(structure, key)
            if kind == "weekdays":
                if self.cleaned_data.get(name):
                    out[key] = sorted(self.cleaned_data[name])
                continue
            if kind == "bands":
                bands = []
                for i in range(1, BAND_ROWS + 1):
                    up, fare = (self.data.get(f"{name}_{i}_up_to_km", "") or "").strip(), (
                        self.data.get(f"{name}_{i}_max_fare", "") or "").strip()
                    if not up and not fare:
                        continue
                    try:
                        bands.append({"up_to_km": _number(up), "max_fare": _number(fare)})
                    except ValueError:
                        self.add_error(f"{name}_{i}_max_fare" if up else f"{name}_{i}_up_to_km",
                                       f"Faixa {i}: informe a distância e a tarifa em números (ex.: 3 e 6,00).")
                if bands:
                    out[key] = bands
                elif required:
                    self.add_error(f"{name}_1_up_to_km", "Informe ao menos uma faixa (até quantos km e a tarifa).")
                continue
            raw = (self.cleaned_data.get(name) or "").strip()
            if not raw:
                if required:
                    self.add_error(name, f"Informe: {label}.")
                continue
            try:
                if kind in ("money", "number"):
                    out[key] = _number(raw)
                elif kind == "dates":
                    out[key] = [_month_day(part) for part in raw.split(",") if part.strip()]
                else:
                    out[key] = raw
            except ValueError:
                self.add_error(name, f"{label}: valor inválido ({raw}).")
        return out

    def clean(self):
        data = forms.Form.clean(self)  # the parent's check of the JSON is replaced by the one below
        structure = data.get("structure", "")
        if structure not in COMPONENTS:
            return data
        data["components"] = self._components(structure)
        if self.errors:
            return data
        labels = {key: (field_name(structure, key), label) for key, label, _, _ in COMPONENTS[structure]}
        for error in rules.component_errors(structure, data["components"]):
            # the rule names a component by its key: say it with the field's label, beside it
            key = next((k for k in labels if f"'{k}'" in error or error.startswith(f"{k}:")), None)
            if key is None:
                self.add_error(None, error)
            else:
                name, label = labels[key]
                target = name if name in self.fields else f"{name}_1_up_to_km"
                self.add_error(target, error.replace(f"'{key}'", f"“{label}”").replace(f"{key}:", f"{label}:"))
        return data

    def table_data(self) -> dict:
        """What tariff_publish takes (the per-component fields are folded into ``components``)."""
        keys = ("modality", "decree", "published_on", "effective_from", "structure", "components", "legal_basis",
                "is_example")
        return {k: self.cleaned_data[k] for k in keys if k in self.cleaned_data}

    def preview(self) -> list[dict]:
        """Fares the valid table gives, at a few distances (day and, with flags, bandeira 2)."""
        data = self.cleaned_data
        structure, components = data["structure"], data["components"]
        if structure == "zones":
            return [{"label": "Passagem urbana", "values": [rules.money(rules.dec(components["urban"]))]}] + (
                [{"label": "Passagem rural", "values": [rules.money(rules.dec(components["rural"]))]}]
                if components.get("rural") else [])
        day = datetime.combine(data["effective_from"], time(12, 0))
        moments = [("12:00", day)]
        if structure == "flags":
            night = rules._hhmm(components["flag2_from"])
            moments.append((f"Bandeira 2 ({components['flag2_from']})", datetime.combine(data["effective_from"], night)))
        rows = []
        for km in PREVIEW_KM:
            values = [rules.quote_fare(structure, components, km=km, local_dt=moment).total for _, moment in moments]
            rows.append({"label": f"{rules.br_km(km)} km", "values": values})
        self.preview_columns = [label for label, _ in moments]
        return rows


def _month_day(part: str) -> str:
    """'25/12' -> '12-25' (the table's MM-DD)."""
    day, _, month = part.strip().partition("/")
    if not (day.isdigit() and month.isdigit()):
        raise ValueError(part)
    return f"{int(month):02d}-{int(day):02d}"
