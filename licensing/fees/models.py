"""Fees (DAM): TFF and the other fees of a grant."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils import timezone

from portal.models import TenantModel


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


class Fee(TenantModel):
    """A fee or fine to be paid with a DAM (Documento de Arrecadação Municipal)."""

    number = models.CharField("número do DAM", max_length=12)
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
            models.UniqueConstraint(fields=["municipality", "number"], name="fee_number_per_municipality"),
            models.CheckConstraint(condition=models.Q(amount__gt=0), name="fee_amount_positive"),
            models.UniqueConstraint(
                fields=["authorization", "reference_year"],
                condition=models.Q(kind="tff") & ~models.Q(status="cancelled"),
                name="one_tff_per_grant_and_year",
            ),
        ]

    def __str__(self) -> str:
        return f"DAM nº {self.number} — {self.description}"


class PaymentSource(models.TextChoices):
    FEBRABAN = "febraban", "Retorno FEBRABAN de arrecadação (código de barras)"
    PIX = "pix", "Extrato Pix"


class PaymentImport(TenantModel):
    """One file of payments read from the bank (a collection return file or a Pix statement).
    The file's SHA-256 is unique: the same file imported again changes nothing."""

    source = models.CharField("origem", max_length=10, choices=PaymentSource.choices)
    sha256 = models.CharField("SHA-256 do arquivo", max_length=64)
    file_name = models.CharField("nome do arquivo", max_length=200, blank=True)
    bank = models.CharField("banco", max_length=40, blank=True)
    file_sequence = models.CharField("número sequencial do arquivo (NSA)", max_length=10, blank=True)
    file_date = models.DateField("data do arquivo", null=True, blank=True)
    imported_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+",
                                    verbose_name="importado por")
    imported_at = models.DateTimeField("importado em", default=timezone.now)
    lines_total = models.PositiveIntegerField("pagamentos no arquivo", default=0)
    settled_count = models.PositiveIntegerField("DAMs baixados", default=0)
    flagged_count = models.PositiveIntegerField("linhas para conferência", default=0)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["municipality", "sha256"], name="paymentimport_sha256_per_municipality")]
        verbose_name = "importação de pagamentos"
        verbose_name_plural = "importações de pagamentos"
        ordering = ["-imported_at", "-id"]

    def __str__(self) -> str:
        return f"{self.get_source_display()} de {self.imported_at:%d/%m/%Y %H:%M}"


class PaymentOutcome(models.TextChoices):
    SETTLED = "settled", "baixado"
    PARTIAL = "partial", "pagamento parcial"
    EXCESS = "excess", "pagamento a maior"
    UNKNOWN = "unknown", "DAM não identificado"
    DUPLICATE = "duplicate", "linha repetida no arquivo"
    ALREADY_IMPORTED = "already_imported", "pagamento já importado"
    ALREADY_PAID = "already_paid", "DAM já pago"
    NOT_PAYABLE = "not_payable", "DAM cancelado"
    INVALID = "invalid", "linha ilegível"


class PaymentLine(TenantModel):
    """What one payment line of an import did. ``identity`` names the payment itself (not the
    record): the first line with an identity has ``first_occurrence``; any later line with the
    same identity, in this file or another, is reported and changes nothing."""

    payment_import = models.ForeignKey(PaymentImport, on_delete=models.PROTECT, related_name="lines",
                                       verbose_name="importação")
    line_no = models.PositiveIntegerField("linha")
    identity = models.CharField("identidade do pagamento", max_length=64, db_index=True)
    first_occurrence = models.BooleanField("primeira ocorrência", default=False)
    reference = models.CharField("código de barras ou txid", max_length=60, blank=True)
    fee = models.ForeignKey(Fee, null=True, blank=True, on_delete=models.PROTECT, related_name="payment_lines",
                            verbose_name="DAM")
    amount = models.DecimalField("valor pago", max_digits=12, decimal_places=2, null=True, blank=True)
    paid_on = models.DateField("data do pagamento", null=True, blank=True)
    outcome = models.CharField("resultado", max_length=20, choices=PaymentOutcome.choices, db_index=True)
    message = models.CharField("mensagem", max_length=300)

    class Meta:
        verbose_name = "linha de pagamento importada"
        verbose_name_plural = "linhas de pagamento importadas"
        ordering = ["payment_import_id", "line_no", "id"]
        constraints = [
            models.UniqueConstraint(fields=["municipality", "identity"], condition=models.Q(first_occurrence=True),
                                    name="payment_identity_once"),
            models.UniqueConstraint(fields=["fee"], condition=models.Q(outcome="settled"),
                                    name="payment_settles_a_dam_once"),
        ]

    def __str__(self) -> str:
        return f"Linha {self.line_no}: {self.get_outcome_display()}"

    @property
    def flagged(self) -> bool:
        return self.outcome != PaymentOutcome.SETTLED
