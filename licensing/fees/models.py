"""Fees (DAM): TFF and the other fees of a grant."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils import timezone


class FeeKind(models.TextChoices):
    TFF = "tff", "Taxa de Fiscalização e Funcionamento (TFF)"
    FINE = "fine", "Multa"


class FeeStatus(models.TextChoices):
    ISSUED = "issued", "emitida"
    PAID = "paid", "paga"
    CANCELLED = "cancelled", "cancelada"


FEE_TRANSITIONS: dict[str, set[str]] = {
    FeeStatus.ISSUED: {FeeStatus.PAID, FeeStatus.CANCELLED},
    FeeStatus.PAID: set(),
    FeeStatus.CANCELLED: set(),
}


class Fee(models.Model):
    """A fee or fine to be paid with a DAM (Documento de Arrecadação Municipal)."""

    number = models.CharField("número do DAM", max_length=12, unique=True)
    kind = models.CharField("tipo", max_length=6, choices=FeeKind.choices, db_index=True)
    authorization = models.ForeignKey(
        "licensing.Authorization", null=True, blank=True, on_delete=models.PROTECT, related_name="fees",
        verbose_name="autorização",
    )
    holder = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="fees", verbose_name="contribuinte",
    )
    description = models.CharField("descrição", max_length=250)
    reference_year = models.PositiveSmallIntegerField("exercício")
    units = models.DecimalField("unidades fiscais", max_digits=9, decimal_places=2, null=True, blank=True)
    unit_name = models.CharField("unidade fiscal", max_length=20, blank=True)
    unit_value = models.DecimalField("valor da unidade", max_digits=9, decimal_places=2, null=True, blank=True)
    amount = models.DecimalField("valor (R$)", max_digits=11, decimal_places=2)
    legal_basis = models.CharField("base legal", max_length=300)
    source = models.CharField("origem", max_length=60, blank=True, help_text="Ex.: auto de infração nº …")
    issued_at = models.DateTimeField("emitida em", default=timezone.now)
    issued_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="+",
        verbose_name="emitida por",
    )
    due_date = models.DateField("vencimento", db_index=True)
    status = models.CharField("situação", max_length=10, choices=FeeStatus.choices,
                              default=FeeStatus.ISSUED, db_index=True)
    paid_on = models.DateField("data do pagamento", null=True, blank=True)
    paid_at = models.DateTimeField("baixa registrada em", null=True, blank=True)
    paid_marked_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="+",
        verbose_name="baixa registrada por",
    )
    payment_reference = models.CharField("referência do pagamento", max_length=80, blank=True)
    status_reason = models.TextField("motivo da situação", blank=True)

    class Meta:
        verbose_name = "taxa ou multa (DAM)"
        verbose_name_plural = "taxas e multas (DAM)"
        ordering = ["-issued_at", "-id"]
        constraints = [
            models.CheckConstraint(condition=models.Q(amount__gt=0), name="fee_amount_positive"),
            models.UniqueConstraint(
                fields=["authorization", "reference_year"],
                condition=models.Q(kind="tff") & ~models.Q(status="cancelled"),
                name="one_tff_per_grant_and_year",
            ),
        ]

    def __str__(self) -> str:
        return f"DAM nº {self.number} — {self.description}"
