"""Base models: people, the municipality and its regulation pack, audit, numbering, notices."""

from __future__ import annotations

import pgtrigger
from django.conf import settings
from django.contrib.auth.models import AbstractUser, UserManager
from django.core.exceptions import ValidationError
from django.db import models
from django.utils import timezone

from portal import tenancy
from portal.numbers import br_number
from portal.validators import validate_cpf


class User(AbstractUser):
    """A person (applicant, holder, auxiliary driver) or a member of staff."""

    name = models.CharField("nome completo", max_length=200, blank=True)
    cpf = models.CharField(
        "CPF",
        max_length=11,
        unique=True,
        null=True,
        blank=True,
        validators=[validate_cpf],
        help_text="Somente números.",
    )
    phone = models.CharField("telefone", max_length=20, blank=True)
    birth_date = models.DateField("data de nascimento", null=True, blank=True)
    registration_number = models.CharField(
        "matrícula", max_length=30, blank=True, help_text="Matrícula do servidor (agentes)."
    )

    objects = UserManager()

    class Meta:
        verbose_name = "usuário"
        verbose_name_plural = "usuários"

    def __str__(self) -> str:
        return self.display_name

    @property
    def display_name(self) -> str:
        # an applicant's username is the CPF: never shown as a name (public pages show names)
        fallback = "(nome não informado)" if self.username.isdigit() and len(self.username) == 11 else self.username
        return self.name or self.get_full_name() or fallback

    @property
    def masked_cpf(self) -> str:
        from portal.validators import mask_cpf

        return mask_cpf(self.cpf or "")


class MunicipalityQuerySet(models.QuerySet):
    def update(self, **kwargs):
        # every change of a municipality row is seen by the caches of every process
        # (portal.tenant_revisions), a bulk one as much as a save
        kwargs.setdefault("revision", models.F("revision") + 1)
        return super().update(**kwargs)


class Municipality(models.Model):
    """The municipality that runs the portal, with its active regulation pack."""

    slug = models.SlugField("identificador do pacote", unique=True)
    name = models.CharField("nome", max_length=120)
    uf = models.CharField("UF", max_length=2)
    ibge_code = models.CharField("código IBGE", max_length=7, blank=True)
    time_zone = models.CharField("fuso horário", max_length=40, default="America/Sao_Paulo")
    office = models.CharField("órgão responsável", max_length=200, blank=True)
    authority = models.CharField("autoridade que assina", max_length=200, blank=True)
    contact_email = models.EmailField("e-mail de contato", blank=True)
    contact_phone = models.CharField("telefone de contato", max_length=40, blank=True)
    complaints_phone = models.CharField("telefone para reclamações", max_length=40, blank=True)
    population = models.PositiveIntegerField("população")
    population_source = models.CharField("fonte da população", max_length=200)
    population_year = models.PositiveSmallIntegerField("ano da população")
    pack = models.JSONField("pacote de regulamentação", default=dict)
    pack_digest = models.CharField("resumo do pacote", max_length=64, blank=True)
    # in service: its hosts answer and its periodic jobs run (several may be, one per tenant)
    is_active = models.BooleanField("em funcionamento", default=False)
    version = models.PositiveIntegerField("versão", default=1)
    loaded_at = models.DateTimeField("carregado em", default=timezone.now)
    # bumped with every change to the row, its parameters, fiscal unit values, modality decrees
    # and hosts (portal.tenant_revisions): what each process compares its cached pack with
    revision = models.PositiveBigIntegerField("revisão da configuração", default=0, editable=False)

    objects = MunicipalityQuerySet.as_manager()

    class Meta:
        verbose_name = "município"
        verbose_name_plural = "municípios"
        ordering = ["name"]

    def __str__(self) -> str:
        return f"{self.name}/{self.uf}"


class MunicipalityHost(models.Model):
    """An extra hostname of a municipality (its own domain), besides ``<slug>.<base domain>``."""

    municipality = models.ForeignKey(
        Municipality, on_delete=models.CASCADE, related_name="hosts", verbose_name="município"
    )
    hostname = models.CharField(
        "endereço", max_length=253, unique=True, help_text="Somente o nome, sem porta: taxi.exemplo.gov.br."
    )

    class Meta:
        verbose_name = "endereço do município"
        verbose_name_plural = "endereços dos municípios"
        ordering = ["hostname"]

    def __str__(self) -> str:
        return self.hostname

    def save(self, *args, **kwargs):
        self.hostname = self.hostname.strip().lower().rstrip(".")
        super().save(*args, **kwargs)


class TenantModel(models.Model):
    """A record that belongs to one municipality (the tenant), whose law applies to it.

    ``objects`` sees the municipality in scope only (``portal.tenancy``); ``all_tenants`` is
    the explicit way across municipalities. The base manager stays plain, so that following a
    foreign key from a record already read never depends on the scope."""

    municipality = models.ForeignKey(
        Municipality,
        on_delete=models.PROTECT,
        default=tenancy.default_municipality_id,
        editable=False,
        db_index=True,
        related_name="+",
        verbose_name="município",
    )

    # True where a row may belong to the installation instead (audit of global accounts)
    installation_rows = False

    objects = tenancy.TenantManager()
    all_tenants = models.Manager()  # noqa: DJ012 - the second manager, not a field

    class Meta:
        abstract = True

    def save(self, *args, **kwargs):
        if self.municipality_id is None:
            scoped = tenancy.current_id_or_none()
            if scoped is None and not self.installation_rows:
                tenancy.current_id()  # raises TenantMissing
            self.municipality_id = scoped
        super().save(*args, **kwargs)


class RegulationParameter(models.Model):
    """One value of the regulation pack, versioned by its effective date."""

    municipality = models.ForeignKey(
        Municipality, on_delete=models.CASCADE, related_name="parameters", verbose_name="município"
    )
    key = models.CharField("parâmetro", max_length=120)
    value = models.JSONField("valor")
    legal_basis = models.CharField("base legal", max_length=300)
    effective_from = models.DateField("vigente desde")
    is_example = models.BooleanField(
        "valor de exemplo",
        default=False,
        help_text="A lei remete a decreto: valor de exemplo a confirmar pelo administrador.",
    )
    source = models.CharField("origem", max_length=20, default="pack")
    created_at = models.DateTimeField("registrado em", auto_now_add=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT
    )

    class Meta:
        verbose_name = "parâmetro da regulamentação"
        verbose_name_plural = "parâmetros da regulamentação"
        ordering = ["key", "-effective_from"]
        constraints = [
            models.UniqueConstraint(
                fields=["municipality", "key", "effective_from"], name="one_value_per_date"
            )
        ]

    def __str__(self) -> str:
        return f"{self.key} = {self.value} ({self.effective_from:%d/%m/%Y})"


class ModalityDecree(models.Model):
    """The decree that opens a modality the law leaves to one (pack: ``modalities.<m>.requires_decree``),
    recorded by the administrator. Until one is in force the modality offers no call, application,
    tariff or mention (portal.regulation.Pack.modality_in_force)."""

    municipality = models.ForeignKey(Municipality, on_delete=models.PROTECT, related_name="modality_decrees",
                                     verbose_name="município")
    modality = models.CharField("modalidade", max_length=20)
    number = models.CharField("número do decreto", max_length=60)
    act_date = models.DateField("data do decreto")
    effective_from = models.DateField("vigente desde")
    link = models.URLField("endereço da publicação", max_length=300, blank=True)
    recorded_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+",
                                    verbose_name="registrado por")
    recorded_at = models.DateTimeField("registrado em", default=timezone.now)

    class Meta:
        verbose_name = "decreto de regulamentação da modalidade"
        verbose_name_plural = "decretos de regulamentação das modalidades"
        ordering = ["modality", "-effective_from", "-id"]
        constraints = [
            models.CheckConstraint(condition=models.Q(effective_from__gte=models.F("act_date")),
                                   name="modality_decree_effective_after_date"),
        ]

    def __str__(self) -> str:
        return f"{self.number} ({self.modality})"


class FiscalUnitValue(models.Model):
    """Value in reais of the municipal fiscal unit (UFP, UMT…), by effective date."""

    municipality = models.ForeignKey(
        Municipality, on_delete=models.CASCADE, related_name="fiscal_units"
    )
    name = models.CharField("unidade fiscal", max_length=20)
    long_name = models.CharField("nome por extenso", max_length=100, blank=True)
    value = models.DecimalField("valor (R$)", max_digits=12, decimal_places=4)
    effective_from = models.DateField("vigente desde")
    legal_basis = models.CharField("base legal", max_length=300)
    is_example = models.BooleanField("valor de exemplo", default=False)

    class Meta:
        verbose_name = "valor da unidade fiscal"
        verbose_name_plural = "valores da unidade fiscal"
        ordering = ["-effective_from"]
        constraints = [
            models.UniqueConstraint(
                fields=["municipality", "name", "effective_from"], name="one_unit_value_per_date"
            )
        ]

    def __str__(self) -> str:
        places = 2 if self.value == round(self.value, 2) else 4  # a unit may be set to 4 places
        return f"{self.name} R$ {br_number(self.value, places)} desde {self.effective_from:%d/%m/%Y}"


TRUNCATE_GUARD = (
    "IF coalesce(current_setting('portal.allow_truncate', true), '') <> 'on' THEN "
    "RAISE EXCEPTION 'TRUNCATE recusado: % é um registro permanente.', TG_TABLE_NAME; "
    "END IF; RETURN NULL;"
)


class AuditQuerySet(tenancy.TenantQuerySet):
    def update(self, **kwargs):
        raise ValidationError("O registro de auditoria não pode ser alterado.")

    def delete(self):
        raise ValidationError("O registro de auditoria não pode ser apagado.")


class AuditEntry(TenantModel):
    """Append-only record of every state change and decision (who, when, what, why).

    An entry belongs to the municipality in scope; one written with none in scope (a role
    granted to a global account from the command line) belongs to the installation
    (municipality empty) and is read through ``all_tenants`` only."""

    municipality = models.ForeignKey(
        Municipality, on_delete=models.PROTECT, null=True, blank=True, default=tenancy.default_municipality_id,
        editable=False, db_index=True, related_name="+", verbose_name="município",
    )
    installation_rows = True

    at = models.DateTimeField("quando", default=timezone.now, db_index=True)
    actor = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="+",
        verbose_name="quem",
    )
    actor_label = models.CharField("quem (texto)", max_length=200, blank=True)
    object_type = models.CharField("tipo do objeto", max_length=100, db_index=True)
    object_id = models.CharField("id do objeto", max_length=64, db_index=True)
    object_repr = models.CharField("objeto", max_length=300, blank=True)
    action = models.CharField("ação", max_length=60)
    from_state = models.CharField("de", max_length=40, blank=True)
    to_state = models.CharField("para", max_length=40, blank=True)
    reason = models.TextField("motivo", blank=True)
    data = models.JSONField("dados", default=dict, blank=True)

    objects = tenancy.tenant_manager(AuditQuerySet)
    all_tenants = tenancy.all_tenants_manager(AuditQuerySet)

    class Meta:
        verbose_name = "registro de auditoria"
        verbose_name_plural = "registros de auditoria"
        ordering = ["-at", "-id"]
        indexes = [
            models.Index(fields=["object_type", "object_id", "at"]),
            # a municipality's newest entry (the data stamp of its public pages) from the index,
            # under row-level security as well (licensing's grant_newest_per_municipality)
            models.Index(fields=["municipality", "id"], name="audit_newest_per_municipality"),
        ]
        triggers = [
            pgtrigger.Protect(name="audit_append_only", operation=pgtrigger.Update | pgtrigger.Delete),
            # TRUNCATE bypasses row triggers: refuse it as a statement. The test runner's flush
            # between transactional tests sets portal.allow_truncate for its own transaction only.
            pgtrigger.Trigger(
                name="audit_no_truncate", operation=pgtrigger.Truncate, level=pgtrigger.Statement,
                when=pgtrigger.Before, func=TRUNCATE_GUARD,
            ),
        ]

    def __str__(self) -> str:
        return f"{self.at:%d/%m/%Y %H:%M} {self.actor_label} {self.action} {self.object_repr}"

    def save(self, *args, **kwargs):
        if self.pk is not None and not kwargs.get("force_insert"):
            raise ValidationError("O registro de auditoria não pode ser alterado.")
        super().save(*args, **kwargs)

    def delete(self, *args, **kwargs):
        raise ValidationError("O registro de auditoria não pode ser apagado.")

    @property
    def actor_name(self) -> str:
        """Who, in words: the person's name (the label keeps the username, a CPF for applicants)."""
        if self.actor_id is not None and self.actor is not None:
            return self.actor.display_name
        return self.actor_label or "sistema"


class IssuedNumber(TenantModel):
    """The ledger of sequential numbers: one row per number given, per (municipality, kind, year).

    Insert-only. The next number is the last row's + 1, read backwards on the unique index, so a
    batch that numbers thousands of documents in one transaction (each in its own savepoint)
    touches one new row per number. A single counter row updated per number grew a chain of
    row versions that PostgreSQL walked on every update: 3.000 numbers in savepoints took 9×
    the time of 1.000. Rows dated before the ledger (migration 0012) carry each counter's last
    number only."""

    kind = models.CharField("tipo", max_length=40)
    year = models.PositiveSmallIntegerField("ano")
    number = models.PositiveIntegerField("número")

    class Meta:
        verbose_name = "número emitido"
        verbose_name_plural = "números emitidos"
        constraints = [models.UniqueConstraint(fields=["municipality", "kind", "year", "number"],
                                               name="one_issue_per_number")]
        # A number given is never taken back nor changed: that would issue it twice.
        triggers = [
            pgtrigger.Protect(name="issued_number_immutable", operation=pgtrigger.Update | pgtrigger.Delete),
            pgtrigger.Trigger(name="issued_number_no_truncate", operation=pgtrigger.Truncate,
                              level=pgtrigger.Statement, when=pgtrigger.Before, func=TRUNCATE_GUARD),
        ]

    def __str__(self) -> str:
        return f"{self.kind} {self.number}/{self.year}"


class Notification(TenantModel):
    """A notice to a person: shown in the portal inbox and sent by e-mail (outbox)."""

    class Status(models.TextChoices):
        PENDING = "pending", "pendente"
        SENT = "sent", "enviada"
        FAILED = "failed", "falhou"
        SKIPPED = "skipped", "sem e-mail"

    recipient = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="notifications",
        verbose_name="destinatário",
    )
    subject = models.CharField("assunto", max_length=200)
    body = models.TextField("mensagem")
    link = models.CharField("link", max_length=300, blank=True)
    # db_default: the set-based jobs insert notices with SQL that does not name this column
    pix_payload = models.TextField("Pix copia e cola", blank=True, default="", db_default="",
                                   help_text="Código Pix do DAM avisado: vai no e-mail com o QR Code.")
    dedup_key = models.CharField("chave de unicidade", max_length=200, null=True, blank=True, unique=True)
    created_at = models.DateTimeField("criada em", default=timezone.now, db_index=True)
    read_at = models.DateTimeField("lida em", null=True, blank=True)
    email_status = models.CharField(
        "e-mail", max_length=10, choices=Status.choices, default=Status.PENDING, db_index=True
    )
    email_attempts = models.PositiveSmallIntegerField("tentativas", default=0)
    email_sent_at = models.DateTimeField("enviada em", null=True, blank=True)
    email_error = models.TextField("erro", blank=True)
    next_attempt_at = models.DateTimeField("próxima tentativa", default=timezone.now)

    class Meta:
        verbose_name = "notificação"
        verbose_name_plural = "notificações"
        ordering = ["-created_at", "-id"]

    def __str__(self) -> str:
        return self.subject


class JobRun(TenantModel):
    """One run of a periodic job: when, how many items changed, failures."""

    name = models.CharField("tarefa", max_length=100, db_index=True)
    started_at = models.DateTimeField("início", default=timezone.now)
    finished_at = models.DateTimeField("fim", null=True, blank=True)
    changed = models.PositiveIntegerField("itens alterados", default=0)
    failures = models.PositiveIntegerField("falhas", default=0)
    detail = models.TextField("detalhes", blank=True)

    class Meta:
        verbose_name = "execução de tarefa"
        verbose_name_plural = "execuções de tarefas"
        ordering = ["-started_at"]

    def __str__(self) -> str:
        return f"{self.name} {self.started_at:%d/%m/%Y %H:%M}"


class IssuedDocumentQuerySet(tenancy.TenantQuerySet):
    def update(self, **kwargs):
        raise ValidationError("Um documento emitido não pode ser alterado.")

    def delete(self):
        raise ValidationError("Um documento emitido não pode ser apagado.")


class IssuedDocument(TenantModel):
    """The PDF of an issued document, rendered once, signed and kept byte for byte.

    An issued act is a legal act: what was issued is what the holder printed and what the
    public verification vouches for. Later changes of the grant are new acts; this row and its
    bytes are never updated or deleted (the ORM refuses it, and PostgreSQL by trigger).
    """

    object_type = models.CharField("tipo do objeto", max_length=100)
    object_id = models.CharField("id do objeto", max_length=64)
    kind = models.CharField("documento", max_length=40)
    number = models.CharField("número", max_length=30, blank=True)
    verification_code = models.CharField("código de verificação", max_length=20, blank=True, db_index=True)
    pdf = models.BinaryField("PDF")
    sha256 = models.CharField("SHA-256", max_length=64, db_index=True)
    size = models.PositiveIntegerField("tamanho (bytes)")
    signed = models.BooleanField("assinado digitalmente", default=False)
    signer = models.CharField("assinante", max_length=300, blank=True)
    demo_certificate = models.BooleanField("certificado de demonstração", default=False)
    issued_at = models.DateTimeField("emitido em", default=timezone.now)

    objects = tenancy.tenant_manager(IssuedDocumentQuerySet)
    all_tenants = tenancy.all_tenants_manager(IssuedDocumentQuerySet)

    class Meta:
        verbose_name = "documento emitido"
        verbose_name_plural = "documentos emitidos"
        constraints = [
            models.UniqueConstraint(fields=["object_type", "object_id", "kind"], name="one_pdf_per_document"),
        ]
        triggers = [
            pgtrigger.Protect(name="issued_document_immutable", operation=pgtrigger.Update | pgtrigger.Delete),
            pgtrigger.Trigger(
                name="issued_document_no_truncate", operation=pgtrigger.Truncate, level=pgtrigger.Statement,
                when=pgtrigger.Before, func=TRUNCATE_GUARD,
            ),
        ]

    def __str__(self) -> str:
        return f"{self.kind} {self.number} ({self.sha256[:12]})"

    def save(self, *args, **kwargs):
        if self.pk is not None and not kwargs.get("force_insert"):
            raise ValidationError("Um documento emitido não pode ser alterado.")
        super().save(*args, **kwargs)

    def delete(self, *args, **kwargs):
        raise ValidationError("Um documento emitido não pode ser apagado.")


class ApiToken(TenantModel):
    """A credential of the API (``Authorization: Token <key>``) that expires and can be revoked.

    Only a digest of the key is stored: the key is shown once, when issued. A person may hold
    several (the agents' app on two phones); each is listed on the person's access page."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="api_tokens", verbose_name="pessoa"
    )
    key_digest = models.CharField("resumo da chave", max_length=64, unique=True)
    prefix = models.CharField("início da chave", max_length=8)
    created_at = models.DateTimeField("criado em", default=timezone.now)
    expires_at = models.DateTimeField("expira em", db_index=True)
    last_used_at = models.DateTimeField("último uso", null=True, blank=True)
    revoked_at = models.DateTimeField("revogado em", null=True, blank=True)
    revoked_reason = models.CharField("motivo da revogação", max_length=40, blank=True)
    user_agent = models.CharField("aplicativo", max_length=200, blank=True)

    class Meta:
        verbose_name = "token de API"
        verbose_name_plural = "tokens de API"
        ordering = ["-created_at", "-id"]

    def __str__(self) -> str:
        return f"{self.prefix}… ({self.user})"

    @property
    def is_active(self) -> bool:
        return self.revoked_at is None and self.expires_at > timezone.now()


class StaffAssignment(models.Model):
    """A role granted in one municipality: staff (atendente, agente, julgador, admin) or the
    designated appeal authority (autoridade recursal).

    A person's account is one across the installation (a driver may apply in two
    municipalities), but staff work for one Prefeitura: a clerk of one municipality has no
    role on another's host. Grants and revocations go through ``portal.staff`` (audited);
    a revoked assignment stays, with who revoked it and when."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="staff_assignments", verbose_name="pessoa"
    )
    municipality = models.ForeignKey(
        Municipality, on_delete=models.PROTECT, related_name="staff_assignments", verbose_name="município"
    )
    role = models.CharField("perfil", max_length=20, choices=[
        ("atendente", "Atendente"), ("agente", "Agente de fiscalização"), ("julgador", "Julgador"),
        ("admin", "Administrador"), ("autoridade_recursal", "Autoridade recursal"),
    ])
    granted_at = models.DateTimeField("concedido em", default=timezone.now)
    granted_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="+",
        verbose_name="concedido por",
    )
    reason = models.CharField("motivo da concessão", max_length=300, blank=True)
    revoked_at = models.DateTimeField("retirado em", null=True, blank=True)
    revoked_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="+",
        verbose_name="retirado por",
    )
    revoked_reason = models.CharField("motivo da retirada", max_length=300, blank=True)

    class Meta:
        verbose_name = "perfil de servidor no município"
        verbose_name_plural = "perfis de servidores nos municípios"
        ordering = ["municipality_id", "user_id", "role"]
        constraints = [
            models.UniqueConstraint(
                fields=["user", "municipality", "role"], condition=models.Q(revoked_at__isnull=True),
                name="one_active_assignment_per_role",
            )
        ]
        indexes = [models.Index(fields=["municipality", "role"], condition=models.Q(revoked_at__isnull=True),
                                name="active_assignments_by_role")]

    def __str__(self) -> str:
        return f"{self.user} — {self.get_role_display()} ({self.municipality})"

    @property
    def is_active(self) -> bool:
        return self.revoked_at is None
