"""Calls (editais) and applications (requerimentos): documents, requirements, inspections
and the applicant's profile. A decided application issues a grant (``licensing.grants``).
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils import timezone

from licensing.grants.models import Authorization, HolderType, Modality
from portal.models import TenantModel

# --- calls, applications, documents, requirements, inspections ---------------------------------


class Call(TenantModel):
    """An edital: a period in which new grants of a modality may be requested."""

    modality = models.CharField("modalidade", max_length=10, choices=Modality.choices)
    start = models.DateField("início")
    end = models.DateField("fim")
    slots = models.PositiveIntegerField("vagas", null=True, blank=True, help_text="Vazio = vagas livres da cota.")
    min_bid = models.DecimalField("oferta mínima (R$)", max_digits=12, decimal_places=2, null=True, blank=True)
    title = models.CharField("título", max_length=200, blank=True)
    notes = models.TextField("observações", blank=True)
    is_regular_window = models.BooleanField("janela anual da lei", default=False)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="+",
        verbose_name="aberto por",
    )
    created_at = models.DateTimeField("aberto em", default=timezone.now)

    class Meta:
        verbose_name = "edital"
        verbose_name_plural = "editais"
        ordering = ["-start", "-id"]
        constraints = [
            models.UniqueConstraint(fields=["municipality", "modality", "start", "end"], name="one_call_per_period"),
            models.CheckConstraint(condition=models.Q(end__gte=models.F("start")), name="call_period_order"),
        ]

    def __str__(self) -> str:
        return self.title or f"Edital {self.get_modality_display()} {self.start:%d/%m/%Y}–{self.end:%d/%m/%Y}"

    def is_open(self, on) -> bool:
        return self.start <= on <= self.end


class ApplicationKind(models.TextChoices):
    NEW = "new", "outorga nova"
    RENEWAL = "renewal", "renovação"


class ApplicationStatus(models.TextChoices):
    DRAFT = "draft", "rascunho"
    SUBMITTED = "submitted", "protocolado"
    IN_REVIEW = "in_review", "em análise"
    REQUIREMENT = "requirement", "exigência"
    INSPECTION_SCHEDULED = "inspection_scheduled", "vistoria agendada"
    APPROVED = "approved", "deferido"
    REFUSED = "refused", "indeferido"
    WITHDRAWN = "withdrawn", "desistência"


# Allowed transitions, in one place. Each is carried out by one service in licensing.applications.services.
APPLICATION_TRANSITIONS: dict[str, set[str]] = {
    ApplicationStatus.DRAFT: {ApplicationStatus.SUBMITTED, ApplicationStatus.WITHDRAWN},
    ApplicationStatus.SUBMITTED: {
        ApplicationStatus.IN_REVIEW, ApplicationStatus.REQUIREMENT, ApplicationStatus.INSPECTION_SCHEDULED,
        ApplicationStatus.APPROVED, ApplicationStatus.REFUSED, ApplicationStatus.WITHDRAWN,
    },
    ApplicationStatus.IN_REVIEW: {
        ApplicationStatus.REQUIREMENT, ApplicationStatus.INSPECTION_SCHEDULED, ApplicationStatus.APPROVED,
        ApplicationStatus.REFUSED, ApplicationStatus.WITHDRAWN,
    },
    ApplicationStatus.REQUIREMENT: {
        ApplicationStatus.IN_REVIEW, ApplicationStatus.INSPECTION_SCHEDULED, ApplicationStatus.REFUSED,
        ApplicationStatus.WITHDRAWN,
    },
    ApplicationStatus.INSPECTION_SCHEDULED: {
        ApplicationStatus.IN_REVIEW, ApplicationStatus.INSPECTION_SCHEDULED, ApplicationStatus.REQUIREMENT,
        ApplicationStatus.APPROVED, ApplicationStatus.REFUSED, ApplicationStatus.WITHDRAWN,
    },
    ApplicationStatus.APPROVED: set(),
    ApplicationStatus.REFUSED: set(),
    ApplicationStatus.WITHDRAWN: set(),  # desistência: the next in the ranking takes the place
}

OPEN_APPLICATION_STATUSES = (
    ApplicationStatus.DRAFT, ApplicationStatus.SUBMITTED, ApplicationStatus.IN_REVIEW,
    ApplicationStatus.REQUIREMENT, ApplicationStatus.INSPECTION_SCHEDULED,
)
# Statuses in which the applicant may still send files (a draft, or an answer to a review).
UPLOAD_STATUSES = OPEN_APPLICATION_STATUSES


class Schooling(models.IntegerChoices):
    NONE = 0, "sem escolaridade"
    FUNDAMENTAL_INCOMPLETE = 1, "fundamental incompleto"
    FUNDAMENTAL = 2, "fundamental completo"
    MEDIO_INCOMPLETE = 3, "médio incompleto"
    MEDIO = 4, "médio completo"
    SUPERIOR_INCOMPLETE = 5, "superior incompleto"
    SUPERIOR = 6, "superior completo"
    POS = 7, "pós-graduação"


class Application(TenantModel):
    """A requerimento for a new grant or a renewal, from draft to decision."""

    applicant = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="applications", verbose_name="requerente"
    )
    kind = models.CharField("tipo", max_length=10, choices=ApplicationKind.choices, default=ApplicationKind.NEW)
    modality = models.CharField("modalidade", max_length=10, choices=Modality.choices)
    # A company applies only where the pack's grant.holder_types admits "pj" (e.g. Lei 724/2008, art. 2);
    # the applicant account is then its representative and responsible driver (art. 4 §2 IX).
    holder_type = models.CharField("tipo de titular", max_length=2, choices=HolderType.choices, default=HolderType.PF)
    company_name = models.CharField("razão social", max_length=200, blank=True)
    cnpj = models.CharField("CNPJ", max_length=14, blank=True)
    status = models.CharField(
        "situação", max_length=24, choices=ApplicationStatus.choices, default=ApplicationStatus.DRAFT, db_index=True
    )
    protocol = models.CharField("protocolo", max_length=12, null=True, blank=True)
    call = models.ForeignKey(
        Call, null=True, blank=True, on_delete=models.PROTECT, related_name="applications", verbose_name="edital"
    )
    vehicle = models.ForeignKey(
        "fleet.Vehicle", null=True, blank=True, on_delete=models.PROTECT, related_name="applications",
        verbose_name="veículo",
    )
    previous_authorization = models.ForeignKey(
        Authorization, null=True, blank=True, on_delete=models.PROTECT, related_name="renewal_applications",
        verbose_name="autorização a renovar",
    )
    cnh_number = models.CharField("número da CNH", max_length=11, blank=True)
    cnh_category = models.CharField("categoria da CNH", max_length=5, blank=True)
    cnh_first_issued = models.DateField("primeira habilitação", null=True, blank=True)
    cnh_ear = models.BooleanField("CNH com EAR", default=False)
    cnh_points = models.PositiveSmallIntegerField("pontos na CNH", null=True, blank=True)
    schooling = models.PositiveSmallIntegerField("escolaridade", choices=Schooling.choices, null=True, blank=True)
    dependents = models.PositiveSmallIntegerField("dependentes", null=True, blank=True)
    bid_amount = models.DecimalField("oferta (R$)", max_digits=12, decimal_places=2, null=True, blank=True)
    wizard_step = models.CharField("etapa do formulário", max_length=20, blank=True, default="modality")
    # What the applicant typed in a step saved "for later" without being judged yet, per step
    # ({"vehicle": {"plate": "QAB1C23", ...}}): shown again when the step is reopened, judged
    # when it is continued; submitting refuses while a step still holds unjudged values.
    typed = models.JSONField("dados digitados ainda não conferidos", default=dict, blank=True)
    authorization = models.ForeignKey(
        Authorization, null=True, blank=True, on_delete=models.PROTECT, related_name="applications",
        verbose_name="autorização emitida",
    )
    created_at = models.DateTimeField("criado em", default=timezone.now)
    updated_at = models.DateTimeField("atualizado em", auto_now=True)
    submitted_at = models.DateTimeField("protocolado em", null=True, blank=True, db_index=True)
    decided_at = models.DateTimeField("decidido em", null=True, blank=True)
    decided_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="+",
        verbose_name="decidido por",
    )
    decision_reason = models.TextField("motivo da decisão", blank=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["municipality", "protocol"], name="application_protocol_per_municipality")]
        verbose_name = "requerimento"
        verbose_name_plural = "requerimentos"
        ordering = ["-submitted_at", "-created_at", "-id"]
        indexes = [models.Index(fields=["modality", "status"])]

    def __str__(self) -> str:
        return f"Requerimento {self.protocol or f'#{self.pk} (rascunho)'}"

    @property
    def display_cnpj(self) -> str:
        from portal.validators import format_cnpj

        return format_cnpj(self.cnpj)

    @property
    def is_open(self) -> bool:
        return self.status in OPEN_APPLICATION_STATUSES

    @property
    def resume_step(self) -> str:
        """Where "Continuar pedido" opens: the first step holding unjudged values, else the furthest reached."""
        for step in ("vehicle", "driver", "auxiliaries"):
            if (self.typed or {}).get(step):
                return step
        return self.wizard_step if self.wizard_step not in ("", "modality") else "vehicle"


class ApplicationAuxiliary(TenantModel):
    """An auxiliary driver named in the application."""

    application = models.ForeignKey(Application, on_delete=models.CASCADE, related_name="auxiliaries")
    position = models.PositiveSmallIntegerField("ordem")
    cpf = models.CharField("CPF", max_length=11)
    name = models.CharField("nome", max_length=200)
    birth_date = models.DateField("data de nascimento", null=True, blank=True)
    cnh_number = models.CharField("número da CNH", max_length=11, blank=True)
    cnh_category = models.CharField("categoria da CNH", max_length=5, blank=True)
    cnh_first_issued = models.DateField("primeira habilitação", null=True, blank=True)
    cnh_ear = models.BooleanField("CNH com EAR", default=False)
    person = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="+",
        verbose_name="pessoa",
    )

    class Meta:
        verbose_name = "condutor auxiliar"
        verbose_name_plural = "condutores auxiliares"
        ordering = ["application", "position"]
        constraints = [models.UniqueConstraint(fields=["application", "position"], name="aux_position_unique")]

    def __str__(self) -> str:
        return f"Condutor auxiliar {self.position}: {self.name}"

    @property
    def code_suffix(self) -> str:
        return f"aux{self.position}"


class DocumentStatus(models.TextChoices):
    PENDING = "pending", "em análise"
    ACCEPTED = "accepted", "aceito"
    REJECTED = "rejected", "recusado"


def _document_upload_to(instance, filename):
    from portal.uploads import private_upload_path

    return private_upload_path("applications")(instance, filename)


class ApplicationDocument(TenantModel):
    """A file sent for one checklist item. A new upload supersedes, never deletes, the old one."""

    application = models.ForeignKey(Application, on_delete=models.PROTECT, related_name="documents")
    type = models.CharField("item", max_length=80, help_text="Código do item; para auxiliar, código:auxN.")
    code = models.CharField("código do item no pacote", max_length=60)
    auxiliary = models.ForeignKey(
        ApplicationAuxiliary, null=True, blank=True, on_delete=models.PROTECT, related_name="documents",
        verbose_name="condutor auxiliar",
    )
    file = models.FileField("arquivo", upload_to=_document_upload_to, max_length=200)
    original_name = models.CharField("nome original", max_length=200, blank=True)
    mime = models.CharField("tipo", max_length=40)
    size = models.PositiveIntegerField("tamanho (bytes)")
    status = models.CharField("situação", max_length=10, choices=DocumentStatus.choices, default=DocumentStatus.PENDING)
    reason = models.TextField("motivo", blank=True)
    uploaded_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    uploaded_at = models.DateTimeField("enviado em", default=timezone.now)
    reviewed_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="+",
        verbose_name="analisado por",
    )
    reviewed_at = models.DateTimeField("analisado em", null=True, blank=True)
    superseded_by = models.OneToOneField(
        "self", null=True, blank=True, on_delete=models.PROTECT, related_name="supersedes",
        verbose_name="substituído por",
    )
    purged_at = models.DateTimeField(
        "arquivo apagado em", null=True, blank=True,
        help_text="Arquivo apagado pela política de retenção (LGPD); o registro permanece.",
    )
    valid_until = models.DateField(
        "válido até", null=True, blank=True,
        help_text="Validade do documento, anotada pelo atendente ao aceitá-lo (CNH, CRLV, certidões).",
    )
    carried_from = models.ForeignKey(
        "self", null=True, blank=True, on_delete=models.PROTECT, related_name="carried_to",
        verbose_name="aproveitado de",
        help_text="Documento ainda válido do requerimento anterior, aproveitado na renovação.",
    )

    class Meta:
        verbose_name = "documento do requerimento"
        verbose_name_plural = "documentos do requerimento"
        ordering = ["application", "type", "-uploaded_at", "-id"]
        indexes = [models.Index(fields=["application", "type"])]

    def __str__(self) -> str:
        return f"{self.type} ({self.get_status_display()})"

    @property
    def is_current(self) -> bool:
        return self.superseded_by_id is None


class Requirement(TenantModel):
    """An exigência: something the clerk asks the applicant to send or fix."""

    application = models.ForeignKey(Application, on_delete=models.PROTECT, related_name="requirements")
    text = models.TextField("exigência")
    document_type = models.CharField("item de documento", max_length=80, blank=True)
    due_date = models.DateField("prazo", null=True, blank=True)
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="+")
    created_at = models.DateTimeField("registrada em", default=timezone.now)
    answered_at = models.DateTimeField("atendida em", null=True, blank=True)
    answer_document = models.ForeignKey(
        ApplicationDocument, null=True, blank=True, on_delete=models.PROTECT, related_name="+",
        verbose_name="documento enviado em resposta",
    )

    class Meta:
        verbose_name = "exigência"
        verbose_name_plural = "exigências"
        ordering = ["application", "created_at", "id"]

    def __str__(self) -> str:
        return f"Exigência: {self.text[:60]}"

    @property
    def is_open(self) -> bool:
        return self.answered_at is None


class Inspection(TenantModel):
    """A vistoria of the application's vehicle on the pack's checklist."""

    application = models.ForeignKey(Application, on_delete=models.PROTECT, related_name="inspections")
    scheduled_for = models.DateTimeField("agendada para")
    location = models.CharField("local", max_length=200, blank=True,
                                help_text="Onde o veículo deve ser apresentado (endereço ou pátio).")
    agent = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="inspections", verbose_name="agente"
    )
    scheduled_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="+")
    created_at = models.DateTimeField("agendada em", default=timezone.now)
    checklist = models.JSONField("itens verificados", default=dict, blank=True)
    approved = models.BooleanField("aprovada", null=True, blank=True)
    notes = models.TextField("observações", blank=True)
    recorded_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="+",
        verbose_name="registrada por",
    )
    recorded_at = models.DateTimeField("resultado registrado em", null=True, blank=True)

    class Meta:
        verbose_name = "vistoria"
        verbose_name_plural = "vistorias"
        ordering = ["-scheduled_for", "-id"]

    def __str__(self) -> str:
        return f"Vistoria de {timezone.localtime(self.scheduled_for):%d/%m/%Y %H:%M}"

    @property
    def has_result(self) -> bool:
        return self.recorded_at is not None


class ApplicantProfile(TenantModel):
    """Personal data the applicant keeps between applications (address, CNH, ranking data)."""

    user = models.OneToOneField(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="applicant_profile")
    address = models.CharField("endereço", max_length=300, blank=True)
    district = models.CharField("bairro", max_length=120, blank=True)
    residence_since = models.DateField("reside no município desde", null=True, blank=True)
    cnh_number = models.CharField("número da CNH", max_length=11, blank=True)
    cnh_category = models.CharField("categoria da CNH", max_length=5, blank=True)
    cnh_first_issued = models.DateField("primeira habilitação", null=True, blank=True)
    cnh_ear = models.BooleanField("CNH com EAR (exerce atividade remunerada)", default=False)
    cnh_points = models.PositiveSmallIntegerField("pontos na CNH (últimos 12 meses)", null=True, blank=True)
    schooling = models.PositiveSmallIntegerField("escolaridade", choices=Schooling.choices, null=True, blank=True)
    dependents = models.PositiveSmallIntegerField("dependentes", null=True, blank=True)
    inss_number = models.CharField("inscrição no INSS (NIT/PIS)", max_length=20, blank=True)
    updated_at = models.DateTimeField("atualizado em", auto_now=True)

    class Meta:
        verbose_name = "perfil do requerente"
        verbose_name_plural = "perfis de requerentes"

    def __str__(self) -> str:
        return f"Perfil de {self.user}"


class Publication(TenantModel):
    """The list of acts the law requires in the Diário Oficial (granted requests, renewals,
    cassações — the pack's ``publication.required_for``), ready to be sent (PDF and plain text),
    with the date, edition and page it was published, recorded by the clerk. Never edited: the
    publication data is recorded once."""

    number = models.CharField("número", max_length=12)
    prepared_at = models.DateTimeField("preparada em", default=timezone.now)
    prepared_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="+",
        verbose_name="preparada por",
    )
    legal_basis = models.CharField("base legal", max_length=300)
    items = models.JSONField("atos", default=list, help_text="[{section, document, number, holder, ...}]")
    text = models.TextField("texto para o Diário Oficial")
    authorizations = models.ManyToManyField(Authorization, blank=True, related_name="publications",
                                            verbose_name="autorizações publicadas")
    amendments = models.ManyToManyField("licensing.Amendment", blank=True, related_name="publications",
                                        verbose_name="atos de alteração publicados")
    published_on = models.DateField("publicada em", null=True, blank=True)
    edition = models.CharField("edição do Diário Oficial", max_length=40, blank=True)
    page = models.CharField("página", max_length=20, blank=True)
    recorded_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="+",
        verbose_name="registrada por",
    )
    recorded_at = models.DateTimeField("registrada em", null=True, blank=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["municipality", "number"], name="publication_number_per_municipality")]
        verbose_name = "publicação no Diário Oficial"
        verbose_name_plural = "publicações no Diário Oficial"
        ordering = ["-prepared_at", "-id"]

    def __str__(self) -> str:
        return f"Publicação nº {self.number}"


class PublishedAct(TenantModel):
    """An act of another room (a decision of appeal in enforcement) gathered into a publication.

    licensing does not import enforcement: the act is named by its stable reference (the
    provider's ``ref``), unique, so that an act goes to the Diário Oficial once."""

    publication = models.ForeignKey(Publication, on_delete=models.PROTECT, related_name="other_acts",
                                    verbose_name="publicação")
    ref = models.CharField("referência do ato", max_length=80)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["municipality", "ref"], name="publishedact_ref_per_municipality")]
        verbose_name = "ato publicado (outra área)"
        verbose_name_plural = "atos publicados (outras áreas)"

    def __str__(self) -> str:
        return f"{self.ref} em {self.publication}"


class ApprovalTally(TenantModel):
    """The public statistics' summary of the approved applications with a protocol: how many
    per modality and the sum of their calendar days from protocol to decision (local days).
    Kept by database triggers on the applications (``licensing.tallies``)."""

    modality = models.CharField("modalidade", max_length=10, choices=Modality.choices)
    n = models.BigIntegerField("requerimentos deferidos", default=0)
    days_sum = models.BigIntegerField("soma dos dias até a decisão", default=0)

    class Meta:
        verbose_name = "contagem de deferimentos"
        verbose_name_plural = "contagens de deferimentos"
        constraints = [models.UniqueConstraint(fields=["municipality", "modality"], name="approvaltally_key")]

    def __str__(self) -> str:
        return f"{self.modality}: {self.n}"
