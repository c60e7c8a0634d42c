"""Life of a grant after it is issued: requests the holder files and the clerk decides,
auxiliary drivers, leaves of absence, prepostos and yearly obligations (stands and fees
have their own rooms).

Issued documents are never edited: a decision supersedes or cancels them and issues new
ones, with an audit entry (``licensing.requests.services``).
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils import timezone

from portal.models import TenantModel


class RequestKind(models.TextChoices):
    AUXILIARY_ADD = "auxiliary_add", "inclusão de condutor auxiliar"
    AUXILIARY_REMOVE = "auxiliary_remove", "exclusão de condutor auxiliar"
    SUBSTITUTION = "substitution", "substituição de veículo"
    LEAVE = "leave", "licença de afastamento"
    TRANSFER = "transfer", "transferência"
    RENUNCIATION = "renunciation", "renúncia"
    PREPOSTO = "preposto", "constituição de preposto"
    AUXILIARY_REREGISTRATION = "aux_reregistration", "recadastramento anual de condutor auxiliar"
    COMPLIANCE_PROOF = "compliance_proof", "comprovação anual dos requisitos"


class RequestStatus(models.TextChoices):
    FILED = "filed", "protocolado"
    APPROVED = "approved", "deferido"
    REFUSED = "refused", "indeferido"


REQUEST_TRANSITIONS: dict[str, set[str]] = {
    RequestStatus.FILED: {RequestStatus.APPROVED, RequestStatus.REFUSED},
    RequestStatus.APPROVED: set(),
    RequestStatus.REFUSED: set(),
}


class LifecycleRequest(TenantModel):
    """A request about a grant (auxiliary driver, substitution, leave, transfer, renunciation…)."""

    protocol = models.CharField("protocolo", max_length=14)
    authorization = models.ForeignKey(
        "licensing.Authorization", on_delete=models.PROTECT, related_name="lifecycle_requests",
        verbose_name="autorização",
    )
    kind = models.CharField("tipo", max_length=20, choices=RequestKind.choices, db_index=True)
    data = models.JSONField("dados", default=dict, blank=True)
    status = models.CharField(
        "situação", max_length=10, choices=RequestStatus.choices, default=RequestStatus.FILED, db_index=True
    )
    filed_on = models.DateField("data do protocolo")
    filed_at = models.DateTimeField("protocolado em", default=timezone.now)
    filed_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+", verbose_name="protocolado por",
    )
    legal_basis = models.CharField("base legal", max_length=300, blank=True)
    late = models.BooleanField(
        "fora do prazo", default=False, help_text="Comunicação feita depois do prazo legal (infração a apurar)."
    )
    late_note = models.TextField("observação sobre o prazo", blank=True)
    inspection_approved = models.BooleanField("vistoria aprovada", null=True, blank=True)
    inspection_checklist = models.JSONField("itens da vistoria", default=dict, blank=True)
    inspection_notes = models.TextField("observações da vistoria", blank=True)
    inspection_at = models.DateTimeField("vistoria em", null=True, blank=True)
    inspection_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="+",
        verbose_name="vistoriador",
    )
    decided_at = models.DateTimeField("decidido em", null=True, blank=True)
    decided_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="+",
        verbose_name="decidido por",
    )
    decision_reason = models.TextField("fundamentação da decisão", blank=True)
    result = models.JSONField("efeitos", default=dict, blank=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["municipality", "protocol"], name="lifecyclerequest_protocol_per_municipality")]
        verbose_name = "pedido sobre a autorização"
        verbose_name_plural = "pedidos sobre autorizações"
        ordering = ["-filed_at", "-id"]
        indexes = [models.Index(fields=["status", "kind"])]

    def __str__(self) -> str:
        return f"Pedido {self.protocol} — {self.get_kind_display()}"


class AuxiliaryStatus(models.TextChoices):
    ACTIVE = "active", "ativo"
    REMOVED = "removed", "excluído"


class AuxiliaryDriver(TenantModel):
    """A condutor auxiliar registered on a grant."""

    authorization = models.ForeignKey(
        "licensing.Authorization", on_delete=models.PROTECT, related_name="auxiliary_drivers",
        verbose_name="autorização",
    )
    person = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="auxiliary_roles", verbose_name="condutor",
    )
    cnh_number = models.CharField("número da CNH", max_length=20, blank=True)
    cnh_category = models.CharField("categoria da CNH", max_length=3, blank=True)
    cnh_first_issued = models.DateField("primeira habilitação", null=True, blank=True)
    cnh_ear = models.BooleanField("CNH com EAR", default=False)
    status = models.CharField("situação", max_length=10, choices=AuxiliaryStatus.choices,
                              default=AuxiliaryStatus.ACTIVE, db_index=True)
    added_on = models.DateField("incluído em")
    added_request = models.ForeignKey(
        LifecycleRequest, null=True, blank=True, on_delete=models.PROTECT, related_name="+",
        verbose_name="pedido de inclusão",
    )
    left_on = models.DateField("data do desligamento", null=True, blank=True)
    removed_on = models.DateField("excluído em", null=True, blank=True)
    removed_request = models.ForeignKey(
        LifecycleRequest, null=True, blank=True, on_delete=models.PROTECT, related_name="+",
        verbose_name="pedido de exclusão",
    )
    removal_late = models.BooleanField("exclusão comunicada fora do prazo", default=False)
    registered_on = models.DateField(
        "último cadastro ou recadastramento", null=True, blank=True,
        help_text="Vazio: conta-se da inclusão. Base do recadastramento anual, onde a lei o exige.",
    )

    class Meta:
        verbose_name = "condutor auxiliar"
        verbose_name_plural = "condutores auxiliares"
        ordering = ["added_on", "id"]
        constraints = [
            models.UniqueConstraint(
                fields=["authorization", "person"], condition=models.Q(status="active"),
                name="one_active_auxiliary_entry",
            )
        ]

    def __str__(self) -> str:
        return f"Condutor auxiliar {self.person}"


class LeaveReason(models.TextChoices):
    THEFT = "theft", "furto do veículo"
    ACCIDENT = "accident", "acidente grave ou destruição total"
    SUBSTITUTION = "substitution", "substituição do veículo"


class LeaveStatus(models.TextChoices):
    ACTIVE = "active", "em curso"
    RETURNED = "returned", "retorno registrado"
    OVERDUE = "overdue", "retorno em atraso"


class LeaveOfAbsence(TenantModel):
    """A licença de afastamento: the grant is kept while the vehicle is off the service."""

    authorization = models.ForeignKey(
        "licensing.Authorization", on_delete=models.PROTECT, related_name="leaves", verbose_name="autorização",
    )
    request = models.OneToOneField(LifecycleRequest, on_delete=models.PROTECT, related_name="leave",
                                   verbose_name="pedido")
    reason = models.CharField("motivo", max_length=14, choices=LeaveReason.choices)
    starts_on = models.DateField("início")
    ends_on = models.DateField("último dia do afastamento", db_index=True)
    legal_basis = models.CharField("base legal", max_length=300)
    status = models.CharField("situação", max_length=10, choices=LeaveStatus.choices,
                              default=LeaveStatus.ACTIVE, db_index=True)
    returned_on = models.DateField("retorno em", null=True, blank=True)
    flagged_at = models.DateTimeField("atraso apontado em", null=True, blank=True)

    class Meta:
        verbose_name = "licença de afastamento"
        verbose_name_plural = "licenças de afastamento"
        ordering = ["-starts_on", "-id"]
        constraints = [
            models.CheckConstraint(condition=models.Q(ends_on__gte=models.F("starts_on")), name="leave_dates_order"),
        ]

    def __str__(self) -> str:
        return f"Afastamento ({self.get_reason_display()}) até {self.ends_on:%d/%m/%Y}"


class Preposto(TenantModel):
    """A preposto who runs the service for a holder in permanent invalidity."""

    authorization = models.ForeignKey(
        "licensing.Authorization", on_delete=models.PROTECT, related_name="prepostos", verbose_name="autorização",
    )
    person = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="preposto_roles", verbose_name="preposto",
    )
    request = models.OneToOneField(LifecycleRequest, on_delete=models.PROTECT, related_name="preposto",
                                   verbose_name="pedido")
    invalidity_on = models.DateField("data da invalidez")
    starts_on = models.DateField("início")
    ended_on = models.DateField("encerrado em", null=True, blank=True)
    legal_basis = models.CharField("base legal", max_length=300)

    class Meta:
        verbose_name = "preposto"
        verbose_name_plural = "prepostos"
        ordering = ["-starts_on", "-id"]

    def __str__(self) -> str:
        return f"Preposto {self.person}"


class YearlyObligation(models.TextChoices):
    AUXILIARY_REREGISTRATION = "aux_reregistration", "recadastramento anual de condutor auxiliar"
    COMPLIANCE_PROOF = "compliance_proof", "comprovação anual dos requisitos"


class YearlyNoticeStage(models.TextChoices):
    REMINDER = "reminder", "lembrete"
    OVERDUE = "overdue", "vencido"


class YearlyNotice(TenantModel):
    """One reminder or overdue flag of a yearly obligation (the job creates each once: the
    unique ``key`` makes it idempotent). An overdue flag is resolved when the obligation is met."""

    key = models.CharField("chave", max_length=120)
    obligation = models.CharField("obrigação", max_length=20, choices=YearlyObligation.choices)
    stage = models.CharField("etapa", max_length=10, choices=YearlyNoticeStage.choices)
    authorization = models.ForeignKey(
        "licensing.Authorization", on_delete=models.PROTECT, related_name="yearly_notices", verbose_name="autorização",
    )
    auxiliary = models.ForeignKey(
        AuxiliaryDriver, null=True, blank=True, on_delete=models.PROTECT, related_name="yearly_notices",
        verbose_name="condutor auxiliar",
    )
    due_on = models.DateField("prazo")
    year = models.PositiveSmallIntegerField("ano da permissão", null=True, blank=True)
    legal_basis = models.CharField("base legal", max_length=300, blank=True)
    created_at = models.DateTimeField("criado em", default=timezone.now)
    resolved_at = models.DateTimeField("regularizado em", null=True, blank=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["municipality", "key"], name="yearlynotice_key_per_municipality")]
        verbose_name = "aviso de obrigação anual"
        verbose_name_plural = "avisos de obrigações anuais"
        ordering = ["due_on", "id"]
        indexes = [models.Index(fields=["stage", "resolved_at"])]

    def __str__(self) -> str:
        return f"{self.get_obligation_display()} — {self.get_stage_display()} ({self.due_on:%d/%m/%Y})"
