"""Autos de infração and what follows them: notice, defense, judgement, appeal, fine (DAM).

An issued auto is never edited in place or deleted: it moves through the statuses of
``INFRACTION_TRANSITIONS`` by ``enforcement.services`` (each move audited) and, when it must
go away, a julgador cancels it with a reason.
"""

from __future__ import annotations

import pgtrigger
from django.conf import settings
from django.db import models
from django.utils import timezone

from portal import tenancy
from portal.models import TRUNCATE_GUARD, TenantModel
from portal.uploads import private_upload_path


def photo_upload_to(instance, filename: str) -> str:
    return private_upload_path("enforcement/photos")(instance, filename)


def attachment_upload_to(instance, filename: str) -> str:
    return private_upload_path("enforcement/attachments")(instance, filename)


class InfractionStatus(models.TextChoices):
    ISSUED = "issued", "lavrado"
    NOTIFIED = "notified", "notificado"
    DEFENSE_FILED = "defense_filed", "defesa apresentada"
    AWAITING_JUDGEMENT = "awaiting_judgement", "aguardando julgamento"
    UPHELD = "upheld", "procedente"
    DISMISSED = "dismissed", "improcedente"
    APPEALED = "appealed", "em recurso"
    FINAL = "final", "decisão definitiva"
    CANCELLED = "cancelled", "cancelado"


S = InfractionStatus
# Allowed transitions, in one place; services._common._transition performs them.
INFRACTION_TRANSITIONS: dict[str, set[str]] = {
    S.ISSUED: {S.NOTIFIED, S.AWAITING_JUDGEMENT, S.CANCELLED},
    S.NOTIFIED: {S.DEFENSE_FILED, S.AWAITING_JUDGEMENT, S.UPHELD, S.DISMISSED, S.CANCELLED},
    S.DEFENSE_FILED: {S.UPHELD, S.DISMISSED, S.CANCELLED},
    S.AWAITING_JUDGEMENT: {S.UPHELD, S.DISMISSED, S.CANCELLED},
    S.UPHELD: {S.APPEALED, S.FINAL, S.CANCELLED},
    S.APPEALED: {S.UPHELD, S.DISMISSED, S.FINAL, S.CANCELLED},
    S.DISMISSED: {S.FINAL},  # ex officio review reforming the dismissal (PL 015/2025 art. 25, §1)
    S.FINAL: set(),
    S.CANCELLED: set(),
}
OPEN_STATUSES = (S.ISSUED, S.NOTIFIED, S.DEFENSE_FILED, S.AWAITING_JUDGEMENT, S.UPHELD, S.APPEALED)
JUDGEABLE_STATUSES = (S.NOTIFIED, S.DEFENSE_FILED, S.AWAITING_JUDGEMENT)


# What the agent wrote and the law in force said when the auto was issued (see Infraction.Meta).
INFRACTION_ISSUED_FIELDS = (
    "number", "verification_code", "plate", "vehicle", "authorization", "holder", "modality", "driver_cpf",
    "driver_name", "driver_is_auxiliary", "agent", "agent_registration", "infraction_code", "extra_codes",
    "catalogue", "occurred_at", "occurred_on", "location", "description", "alvara_retained", "signature_refused",
    "idempotency_key", "created_at",
)


class Infraction(TenantModel):
    """Auto de infração (PL 015/2025 art. 20; Lei 3.703/2022 art. 18; Lei 724/2008 art. 25)."""

    number = models.CharField("número", max_length=12)
    verification_code = models.CharField("código de verificação", max_length=14, unique=True, null=True, blank=True)
    plate = models.CharField("placa", max_length=7, db_index=True)
    vehicle = models.ForeignKey(
        "fleet.Vehicle", null=True, blank=True, on_delete=models.PROTECT, related_name="infractions",
        verbose_name="veículo",
    )
    authorization = models.ForeignKey(
        "licensing.Authorization", null=True, blank=True, on_delete=models.PROTECT, related_name="infractions",
        verbose_name="autorização",
    )
    holder = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="infractions",
        verbose_name="autorizatário",
    )
    modality = models.CharField("modalidade", max_length=10, blank=True)
    driver_cpf = models.CharField("CPF do condutor", max_length=11, blank=True)
    driver_name = models.CharField("nome do condutor", max_length=200, blank=True)
    driver_is_auxiliary = models.BooleanField("condutor auxiliar", default=False)
    agent = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="infractions_issued",
        verbose_name="agente autuador",
    )
    agent_registration = models.CharField("matrícula do agente", max_length=30, blank=True)
    infraction_code = models.CharField("código da infração", max_length=20, db_index=True)
    extra_codes = models.JSONField("infrações simultâneas", default=list, blank=True)
    catalogue = models.JSONField("enquadramento (cópia do catálogo)", default=list)
    occurred_at = models.DateTimeField("data e hora da infração")
    occurred_on = models.DateField("data da infração (local)", db_index=True)
    location = models.CharField("local", max_length=300)
    description = models.TextField("descrição")
    alvara_retained = models.BooleanField("alvará retido", default=False)
    retained_alvara = models.ForeignKey(
        "licensing.Alvara", null=True, blank=True, on_delete=models.PROTECT, related_name="+",
        verbose_name="alvará retido",
    )
    signature_refused = models.BooleanField("recusou-se a assinar", default=False)
    idempotency_key = models.CharField("chave de envio", max_length=64, unique=True, null=True, blank=True)
    status = models.CharField("situação", max_length=20, choices=InfractionStatus.choices,
                              default=InfractionStatus.ISSUED, db_index=True)
    status_changed_at = models.DateTimeField("situação alterada em", default=timezone.now)
    defense_deadline = models.DateField("prazo da defesa", null=True, blank=True)
    appeal_deadline = models.DateField("prazo do recurso", null=True, blank=True)
    appeal_instance = models.PositiveSmallIntegerField("instância do próximo recurso", default=1)
    defense_deadline_note = models.TextField("contagem do prazo da defesa", blank=True)  # a note naming every holiday it skipped
    appeal_deadline_note = models.TextField("contagem do prazo do recurso", blank=True)
    decision_notice_pending = models.BooleanField(
        "aguardando a notificação da decisão", default=False,
        help_text="O prazo de recurso só corre da ciência da notificação da decisão.")
    review_hearing_deadline = models.DateField("prazo das alegações (revisão de ofício)", null=True, blank=True)
    penalty = models.JSONField("penalidade", null=True, blank=True)
    final_on = models.DateField("decisão definitiva em", null=True, blank=True)
    effects_on = models.DateField("efeitos sobre a autorização aplicados em", null=True, blank=True,
                                  help_text="Na decisão procedente, quando o recurso não tem efeito suspensivo.")
    suspension_until = models.DateField("suspensão até", null=True, blank=True)
    suspension_lifted = models.BooleanField("suspensão encerrada", default=False)
    cancel_reason = models.TextField("motivo do cancelamento", blank=True)
    created_at = models.DateTimeField("lavrado em", default=timezone.now)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["municipality", "number"], name="infraction_number_per_municipality")]
        verbose_name = "auto de infração"
        verbose_name_plural = "autos de infração"
        ordering = ["-occurred_at", "-id"]
        indexes = [models.Index(fields=["holder", "status"]), models.Index(fields=["status", "defense_deadline"])]
        triggers = [
            pgtrigger.Protect(name="infraction_never_deleted", operation=pgtrigger.Delete),
            # An issued auto is never edited: only its workflow columns (status, deadlines and their
            # notes, penalty, effects, the retained alvará set in the issuing transaction, the
            # reason of a cancellation) change, through the services; a correction is a new act.
            pgtrigger.Protect(name="infraction_issued_columns_immutable", operation=pgtrigger.Update,
                              condition=pgtrigger.AnyChange(*INFRACTION_ISSUED_FIELDS)),
            pgtrigger.Trigger(name="infraction_no_truncate", operation=pgtrigger.Truncate, level=pgtrigger.Statement,
                              when=pgtrigger.Before, func=TRUNCATE_GUARD),
        ]

    def __str__(self) -> str:
        return f"Auto de infração nº {self.number}"

    @property
    def display_plate(self) -> str:
        p = self.plate
        return f"{p[:3]}-{p[3:]}" if len(p) == 7 and p[4].isdigit() else p

    @property
    def codes(self) -> list[str]:
        return [self.infraction_code, *[c for c in self.extra_codes if c != self.infraction_code]]

    @property
    def judgeable_from(self):
        """First day a julgador may decide while no defense or waiver came: the day after the
        defense period (Lei 3.703/2022 art. 18, §4; PL 015/2025 art. 22)."""
        from datetime import timedelta

        return self.defense_deadline + timedelta(days=1) if self.defense_deadline else None

    @property
    def is_open(self) -> bool:
        return self.status in OPEN_STATUSES

    @property
    def next_step(self) -> str:
        return {
            S.ISSUED: "Aguardando a notificação da autuação.",
            S.NOTIFIED: "Prazo aberto para a defesa prévia." if self.defense_deadline else "Aguardando julgamento.",
            S.DEFENSE_FILED: "Defesa recebida; aguardando julgamento.",
            S.AWAITING_JUDGEMENT: "Aguardando julgamento.",
            S.UPHELD: ("Auto julgado procedente; prazo aberto para recurso." if self.appeal_deadline else
                       "Auto julgado procedente; aguardando a notificação da decisão, que abre o prazo do recurso."
                       if self.decision_notice_pending else "Auto julgado procedente."),
            S.APPEALED: "Recurso em análise.",
            S.DISMISSED: "Auto julgado improcedente e arquivado.",
            S.FINAL: "Decisão definitiva; penalidade aplicada.",
            S.CANCELLED: "Auto cancelado.",
        }[self.status]


class ProofPhoto(TenantModel):
    infraction = models.ForeignKey(Infraction, on_delete=models.PROTECT, related_name="photos", verbose_name="auto")
    file = models.FileField("foto", upload_to=photo_upload_to)
    mime = models.CharField("tipo", max_length=40)
    uploaded_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    uploaded_at = models.DateTimeField("enviada em", default=timezone.now)

    class Meta:
        verbose_name = "foto do auto"
        verbose_name_plural = "fotos do auto"
        ordering = ["id"]

    def __str__(self) -> str:
        return f"Foto {self.pk} do auto {self.infraction_id}"


class Notice(TenantModel):
    """Notificação da autuação: date of ciência, or refusal (PL 015/2025 art. 21, §2, III)."""

    infraction = models.OneToOneField(Infraction, on_delete=models.PROTECT, related_name="notice", verbose_name="auto")
    acknowledged_on = models.DateField("data da ciência")
    refused = models.BooleanField("recusou-se a receber", default=False)
    published = models.BooleanField("notificado por publicação (autuado não localizado)", default=False)
    recorded_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+",
                                    verbose_name="registrado por")
    recorded_at = models.DateTimeField("registrado em", default=timezone.now)
    number = models.CharField("número", max_length=12)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["municipality", "number"], name="notice_number_per_municipality")]
        verbose_name = "notificação da autuação"
        verbose_name_plural = "notificações da autuação"

    def __str__(self) -> str:
        return f"Notificação nº {self.number}"



class FilingChannel(models.TextChoices):
    ONLINE = "online", "pelo portal"
    COUNTER = "counter", "no balcão (protocolo)"
    POST = "post", "pelo correio"


class Defense(TenantModel):
    infraction = models.OneToOneField(Infraction, on_delete=models.PROTECT, related_name="defense", verbose_name="auto")
    author = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    text = models.TextField("razões da defesa")
    filed_at = models.DateTimeField("apresentada em", default=timezone.now)
    filed_on = models.DateField("data (local) — do recebimento, quando em papel")
    channel = models.CharField("meio", max_length=10, choices=FilingChannel.choices, default=FilingChannel.ONLINE)
    received_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT,
                                    related_name="+", verbose_name="recebida por")

    class Meta:
        verbose_name = "defesa prévia"
        verbose_name_plural = "defesas prévias"

    def __str__(self) -> str:
        return f"Defesa prévia do auto {self.infraction_id}"


class Judgement(TenantModel):
    infraction = models.OneToOneField(Infraction, on_delete=models.PROTECT, related_name="judgement", verbose_name="auto")
    number = models.CharField("número da decisão", max_length=12)
    judge = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+", verbose_name="julgador")
    upheld = models.BooleanField("procedente")
    grounds = models.TextField("fundamentação")
    penalty = models.JSONField("penalidade", null=True, blank=True)
    recidivism_refs = models.JSONField("autos anteriores (reincidência)", default=list, blank=True)
    decided_at = models.DateTimeField("decidido em", default=timezone.now)
    decided_on = models.DateField("data (local)")

    class Meta:
        constraints = [models.UniqueConstraint(fields=["municipality", "number"], name="judgement_number_per_municipality")]
        verbose_name = "julgamento"
        verbose_name_plural = "julgamentos"
        # a decision is never edited nor deleted; a reform on appeal is a new act (Appeal)
        triggers = [pgtrigger.Protect(name="judgement_immutable", operation=pgtrigger.Update | pgtrigger.Delete),
                    pgtrigger.Trigger(name="judgement_no_truncate", operation=pgtrigger.Truncate,
                                      level=pgtrigger.Statement, when=pgtrigger.Before, func=TRUNCATE_GUARD)]

    def __str__(self) -> str:
        return f"Decisão nº {self.number}"


class Appeal(TenantModel):
    infraction = models.ForeignKey(Infraction, on_delete=models.PROTECT, related_name="appeals", verbose_name="auto")
    instance = models.PositiveSmallIntegerField("instância", default=1)
    ex_officio = models.BooleanField("recurso de ofício", default=False)
    authority = models.CharField("autoridade", max_length=200, blank=True)
    author = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="+")
    text = models.TextField("razões do recurso")
    filed_at = models.DateTimeField("interposto em", default=timezone.now)
    filed_on = models.DateField("data (local) — do recebimento, quando em papel")
    channel = models.CharField("meio", max_length=10, choices=FilingChannel.choices, default=FilingChannel.ONLINE)
    received_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT,
                                    related_name="+", verbose_name="recebido por")
    granted = models.BooleanField("provido", null=True, blank=True)
    grounds = models.TextField("fundamentação da decisão", blank=True)
    judge = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="+")
    decided_at = models.DateTimeField("decidido em", null=True, blank=True)
    decided_on = models.DateField("data da decisão (local)", null=True, blank=True)
    number = models.CharField("número da decisão", max_length=12, blank=True)

    class Meta:
        verbose_name = "recurso"
        verbose_name_plural = "recursos"
        ordering = ["instance", "id"]
        constraints = [models.UniqueConstraint(fields=["infraction", "instance"], name="one_appeal_per_instance")]

    def __str__(self) -> str:
        return f"Recurso ({self.instance}ª instância) do auto {self.infraction_id}"


class Attachment(TenantModel):
    """A file attached to a defense or an appeal."""

    class Kind(models.TextChoices):
        DEFENSE = "defense", "defesa"
        APPEAL = "appeal", "recurso"
        WAIVER = "waiver", "renúncia ao prazo de defesa"
        HEARING = "hearing", "alegações (revisão de ofício)"

    infraction = models.ForeignKey(Infraction, on_delete=models.PROTECT, related_name="attachments")
    kind = models.CharField("peça", max_length=10, choices=Kind.choices)
    file = models.FileField("arquivo", upload_to=attachment_upload_to)
    mime = models.CharField("tipo", max_length=40)
    original_name = models.CharField("nome original", max_length=200, blank=True)
    uploaded_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    uploaded_at = models.DateTimeField("enviado em", default=timezone.now)

    class Meta:
        verbose_name = "anexo"
        verbose_name_plural = "anexos"
        ordering = ["id"]

    def __str__(self) -> str:
        return f"Anexo {self.pk} ({self.get_kind_display()})"


class Fine(TenantModel):
    """The fine of a final decision and its payment slip (DAM)."""

    infraction = models.OneToOneField(Infraction, on_delete=models.PROTECT, related_name="fine", verbose_name="auto")
    number = models.CharField("número do DAM", max_length=12)
    amount = models.DecimalField("valor", max_digits=12, decimal_places=2)
    due_date = models.DateField("vencimento")
    issued_at = models.DateTimeField("emitido em", default=timezone.now)
    paid = models.BooleanField("pago", default=False)
    paid_on = models.DateField("pago em", null=True, blank=True)
    paid_recorded_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT,
                                         related_name="+")
    # The DAM of the fees room (barcode, Pix, reconciliation, dívida ativa); empty for a fine of
    # an auto without an identified holder account, paid at the desk.
    fee = models.OneToOneField("licensing.Fee", null=True, blank=True, on_delete=models.PROTECT,
                               related_name="enforcement_fine", verbose_name="DAM (taxas e multas)")

    class Meta:
        verbose_name = "multa (DAM)"
        verbose_name_plural = "multas (DAM)"
        constraints = [
            models.UniqueConstraint(fields=["municipality", "number"], name="fine_number_per_municipality"),models.CheckConstraint(condition=models.Q(amount__gt=0), name="fine_amount_positive")]

    def __str__(self) -> str:
        return f"DAM nº {self.number}"


class DefenseWaiver(TenantModel):
    """The holder's written waiver of the defense period (recorded online or from paper by a clerk)."""

    infraction = models.OneToOneField(Infraction, on_delete=models.PROTECT, related_name="defense_waiver",
                                      verbose_name="auto")
    author = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT,
                               related_name="+", verbose_name="autuado")
    text = models.TextField("termo de renúncia")
    waived_on = models.DateField("data da renúncia (ou do recebimento)")
    channel = models.CharField("meio", max_length=10, choices=FilingChannel.choices, default=FilingChannel.ONLINE)
    recorded_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+",
                                    verbose_name="registrada por")
    recorded_at = models.DateTimeField("registrada em", default=timezone.now)

    class Meta:
        verbose_name = "renúncia ao prazo de defesa"
        verbose_name_plural = "renúncias ao prazo de defesa"

    def __str__(self) -> str:
        return f"Renúncia ao prazo de defesa do auto {self.infraction_id}"


class DecisionNotice(TenantModel):
    """Notificação da decisão: opens the appeal period against that decision (date of ciência,
    of the refusal, or of the publication when the holder cannot be found)."""

    infraction = models.ForeignKey(Infraction, on_delete=models.PROTECT, related_name="decision_notices",
                                   verbose_name="auto")
    instance = models.PositiveSmallIntegerField("recurso que a notificação abre (instância)", default=1)
    decision = models.CharField("número da decisão notificada", max_length=12)
    acknowledged_on = models.DateField("data da ciência (ou da recusa, ou da publicação)")
    refused = models.BooleanField("recusou-se a receber", default=False)
    published = models.BooleanField("notificado por publicação (autuado não localizado)", default=False)
    appeal_deadline = models.DateField("prazo do recurso", null=True, blank=True)
    recorded_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+",
                                    verbose_name="registrado por")
    recorded_at = models.DateTimeField("registrado em", default=timezone.now)
    number = models.CharField("número", max_length=12)

    class Meta:
        verbose_name = "notificação da decisão"
        verbose_name_plural = "notificações da decisão"
        ordering = ["instance", "id"]
        constraints = [
            models.UniqueConstraint(fields=["municipality", "number"], name="decisionnotice_number_per_municipality"),models.UniqueConstraint(fields=["infraction", "instance"], name="one_decision_notice_per_instance")]

    def __str__(self) -> str:
        return f"Notificação da decisão nº {self.number}"


class RecordedRegulation(TenantModel):
    """A regulation (decreto) that fixes a value the law leaves to regulation: the fine of an
    infraction (``fine:<code>``, in reais) or the fiscal unit (``fiscal_unit``, reais per unit).
    Until one is recorded, an example value of the pack produces no legal effect."""

    municipality = models.ForeignKey("portal.Municipality", on_delete=models.PROTECT, related_name="+",
                                     default=tenancy.default_municipality_id, verbose_name="município")
    key = models.CharField("valor regulamentado", max_length=40, db_index=True)
    act_number = models.CharField("número do regulamento (decreto)", max_length=60)
    act_date = models.DateField("data do regulamento")
    effective_from = models.DateField("vigente desde")
    value = models.DecimalField("valor (R$)", max_digits=12, decimal_places=2)
    recorded_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+",
                                    verbose_name="registrado por")
    recorded_at = models.DateTimeField("registrado em", default=timezone.now)

    class Meta:
        verbose_name = "regulamento registrado"
        verbose_name_plural = "regulamentos registrados"
        ordering = ["key", "-effective_from", "-id"]
        constraints = [models.CheckConstraint(condition=models.Q(value__gt=0), name="regulation_value_positive")]

    def __str__(self) -> str:
        return f"{self.act_number} ({self.key})"


class InfractionTally(TenantModel):
    """The public statistics' summary of the autos not cancelled: how many per infraction code
    and local month of the infraction. Kept by database triggers on the autos
    (``enforcement.tallies``), in the statement that changes them."""

    infraction_code = models.CharField("código da infração", max_length=20)
    month = models.DateField("mês da infração")
    n = models.BigIntegerField("autos", default=0)

    class Meta:
        verbose_name = "contagem de autos"
        verbose_name_plural = "contagens de autos"
        constraints = [models.UniqueConstraint(fields=["municipality", "infraction_code", "month"],
                                               name="infractiontally_key")]

    def __str__(self) -> str:
        return f"{self.infraction_code}/{self.month:%m-%Y}: {self.n}"
