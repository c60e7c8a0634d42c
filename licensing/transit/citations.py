"""Where the pack's bus law says each rule: ``[collective_transport.articles]``.

Code names a rule by key (``"renewal"``) and never an article number: the pack of each
municipality with collective transport says where its own law has that rule, so that audit
entries, refusals, forms and the contract PDF cite that law. ``law_basis(pack, "renewal")``
is ``"<law short name>, <article>"``; ``article(pack, "renewal")`` is the article alone, for
the texts that already name the law.
"""

from __future__ import annotations


def articles(pack) -> dict[str, str]:
    return dict(((pack.collective_transport or {}).get("articles") or {}) if pack else {})


def article(pack, key: str) -> str:
    return articles(pack).get(key, "")


def law_short(pack) -> str:
    law = pack.law((pack.collective_transport or {}).get("law", "")) or {}
    return law.get("short", "")


def law_basis(pack, key: str) -> str:
    return f"{law_short(pack)}, {article(pack, key)}".strip(", ")


class _Blank(dict):
    def __missing__(self, key: str) -> str:
        return ""


def cite(text, pack) -> str:
    """``text`` with each ``{key}`` replaced by the pack's article for that rule."""
    text = str(text)
    return text.format_map(_Blank(articles(pack))) if "{" in text else text


class CitesTheLaw:
    """Form mixin: labels and help texts with ``{key}`` name the pack's article of the rule."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        from portal import regulation

        pack = regulation.current(required=False)
        for field in self.fields.values():
            if field.label and "{" in str(field.label):
                field.label = cite(field.label, pack)
            if field.help_text and "{" in str(field.help_text):
                field.help_text = cite(field.help_text, pack)
