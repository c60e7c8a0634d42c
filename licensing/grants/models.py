"""Grants (authorizations / permissions) and alvarás, and bars on new grants.

Issued acts are never edited or deleted: their status changes through services
(``licensing.grants.services``), each change with an audit entry.
"""

from __future__ import annotations

import pgtrigger
from django.conf import settings
from django.db import models
from django.utils import timezone

from portal.models import TRUNCATE_GUARD, TenantModel


def _never_deleted(name: str) -> list:
    """An issued act is never deleted (it ends by a status change, itself audited): PostgreSQL
    refuses DELETE and TRUNCATE (the test runner's flush alone may truncate, see TRUNCATE_GUARD)."""
    return [pgtrigger.Protect(name=f"{name}_never_deleted", operation=pgtrigger.Delete),
            pgtrigger.Trigger(name=f"{name}_no_truncate", operation=pgtrigger.Truncate, level=pgtrigger.Statement,
                              when=pgtrigger.Before, func=TRUNCATE_GUARD)]


class Modality(models.TextChoices):
    TAXI = "taxi", "Táxi"
    MOTOTAXI = "mototaxi", "Mototáxi"


class HolderType(models.TextChoices):
    """Who holds a grant: pack key grant.holder_types (e.g. Lei 724/2008, art. 2)."""

    PF = "pf", "Pessoa física (motorista autônomo)"
    PJ = "pj", "Pessoa jurídica (empresa)"


class AuthorizationStatus(models.TextChoices):
    ACTIVE = "active", "ativa"
    SUSPENDED = "suspended", "suspensa"
    CASSADA = "cassada", "cassada"
    EXPIRED = "expired", "expirada"
    RENOUNCED = "renounced", "renunciada"
    CANCELLED = "cancelled", "cancelada"


# Allowed transitions, in one place. services.authorization_set_status performs them.
AUTHORIZATION_TRANSITIONS: dict[str, set[str]] = {
    AuthorizationStatus.ACTIVE: {
        AuthorizationStatus.SUSPENDED, AuthorizationStatus.CASSADA, AuthorizationStatus.EXPIRED,
        AuthorizationStatus.RENOUNCED, AuthorizationStatus.CANCELLED,
    },
    AuthorizationStatus.SUSPENDED: {
        AuthorizationStatus.ACTIVE, AuthorizationStatus.CASSADA, AuthorizationStatus.EXPIRED,
        AuthorizationStatus.RENOUNCED, AuthorizationStatus.CANCELLED,
    },
    AuthorizationStatus.EXPIRED: {AuthorizationStatus.ACTIVE},  # renewal decided after expiry
    AuthorizationStatus.CASSADA: set(),  # undone only by authorization_restore (the decision reformed on appeal)
    AuthorizationStatus.RENOUNCED: set(),
    AuthorizationStatus.CANCELLED: set(),
}

CURRENT_STATUSES = (AuthorizationStatus.ACTIVE, AuthorizationStatus.SUSPENDED)


class Authorization(TenantModel):
    """The grant act of the pack (Portaria Autorizativa, Autorização, Termo de Permissão)."""

    number = models.CharField("número", max_length=12)
    act_name = models.CharField("ato", max_length=80)
    modality = models.CharField("modalidade", max_length=10, choices=Modality.choices)
    holder = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="authorizations",
        verbose_name="autorizatário",
    )
    # Copied from the application when granted (a company holder, e.g. Lei 724/2008, art. 2 and 4 §2); the
    # account in `holder` is then the company's representative and responsible driver (art. 4 §2 IX).
    holder_type = models.CharField("tipo de titular", max_length=2, choices=HolderType.choices, default=HolderType.PF)
    company_name = models.CharField("razão social", max_length=200, blank=True)
    cnpj = models.CharField("CNPJ", max_length=14, blank=True)
    vehicle = models.ForeignKey(
        "fleet.Vehicle", null=True, blank=True, on_delete=models.PROTECT, related_name="authorizations",
        verbose_name="veículo",
    )
    status = models.CharField(
        "situação", max_length=12, choices=AuthorizationStatus.choices, default=AuthorizationStatus.ACTIVE,
        db_index=True,
    )
    issued_at = models.DateTimeField("emitida em", default=timezone.now)
    valid_from = models.DateField("válida desde")
    valid_until = models.DateField("válida até", db_index=True)
    suspended_until = models.DateField("suspensa até", null=True, blank=True)
    renewals = models.PositiveSmallIntegerField("renovações", default=0)
    verification_code = models.CharField("código de verificação", max_length=14, unique=True)
    legal_basis = models.CharField("base legal", max_length=300)
    issued_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="+",
        verbose_name="emitida por",
    )
    status_reason = models.TextField("motivo da situação", blank=True)
    status_changed_at = models.DateTimeField("situação alterada em", null=True, blank=True)

    @property
    def display_cnpj(self) -> str:
        from portal.validators import format_cnpj

        return format_cnpj(self.cnpj)

    @property
    def holder_display_name(self) -> str:
        """Who holds the act as the act names it: the company (razão social) or the person."""
        return self.company_name if self.holder_type == HolderType.PJ and self.company_name else self.holder.display_name

    class Meta:
        verbose_name = "autorização"
        verbose_name_plural = "autorizações"
        ordering = ["-issued_at", "-id"]
        constraints = [
            models.UniqueConstraint(fields=["municipality", "number"], name="authorization_number_per_municipality"),
            models.UniqueConstraint(
                fields=["vehicle"],
                condition=models.Q(status__in=["active", "suspended"]),
                name="one_current_grant_per_vehicle",
            ),
            models.CheckConstraint(condition=models.Q(valid_until__gte=models.F("valid_from")), name="grant_validity_order"),
        ]
        indexes = [
            models.Index(fields=["modality", "status"]),
            # the expiry and reminder jobs run once per municipality: each reads its own current
            # grants by date here, not every municipality's through valid_until (issue 17)
            models.Index(fields=["municipality", "valid_until"], name="current_grant_due_idx",
                         condition=models.Q(status__in=["active", "suspended"])),
            # a municipality's newest grant (the data stamp of its public pages) straight from the
            # index: under row-level security the application's role read MAX(id) as "walk the
            # primary key back until a row of mine", which for a small municipality among many
            # crossed every grant issued after its last (issue 17)
            models.Index(fields=["municipality", "id"], name="grant_newest_per_municipality"),
        ]
        triggers = _never_deleted("authorization")

    def __str__(self) -> str:
        return f"{self.act_name} nº {self.number}"

    @property
    def is_current(self) -> bool:
        return self.status in CURRENT_STATUSES


class AlvaraStatus(models.TextChoices):
    ACTIVE = "active", "ativo"
    SUSPENDED = "suspended", "suspenso"
    RETAINED = "retained", "retido"
    EXPIRED = "expired", "expirado"
    CANCELLED = "cancelled", "cancelado"
    SUPERSEDED = "superseded", "substituído"


ALVARA_TRANSITIONS: dict[str, set[str]] = {
    AlvaraStatus.ACTIVE: {AlvaraStatus.SUSPENDED, AlvaraStatus.RETAINED, AlvaraStatus.EXPIRED,
                          AlvaraStatus.CANCELLED, AlvaraStatus.SUPERSEDED},
    AlvaraStatus.SUSPENDED: {AlvaraStatus.ACTIVE, AlvaraStatus.EXPIRED, AlvaraStatus.CANCELLED,
                             AlvaraStatus.SUPERSEDED},
    AlvaraStatus.RETAINED: {AlvaraStatus.ACTIVE, AlvaraStatus.SUSPENDED, AlvaraStatus.EXPIRED,
                            AlvaraStatus.CANCELLED, AlvaraStatus.SUPERSEDED},
    AlvaraStatus.EXPIRED: {AlvaraStatus.ACTIVE, AlvaraStatus.SUPERSEDED},
    AlvaraStatus.CANCELLED: set(),
    AlvaraStatus.SUPERSEDED: set(),
}


class Alvara(TenantModel):
    """Alvará de circulação (per vehicle) or de condutor (per driver), as the pack says."""

    number = models.CharField("número", max_length=12)
    doc_name = models.CharField("documento", max_length=80)
    authorization = models.ForeignKey(
        Authorization, on_delete=models.PROTECT, related_name="alvaras", verbose_name="autorização"
    )
    person = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="alvaras", verbose_name="condutor",
    )
    vehicle = models.ForeignKey(
        "fleet.Vehicle", null=True, blank=True, on_delete=models.PROTECT, related_name="alvaras",
        verbose_name="veículo",
    )
    is_auxiliary = models.BooleanField("condutor auxiliar", default=False)
    status = models.CharField(
        "situação", max_length=12, choices=AlvaraStatus.choices, default=AlvaraStatus.ACTIVE, db_index=True
    )
    issued_at = models.DateTimeField("emitido em", default=timezone.now)
    valid_until = models.DateField("válido até", db_index=True)
    verification_code = models.CharField("código de verificação", max_length=14, unique=True)
    legal_basis = models.CharField("base legal", max_length=300)
    supersedes = models.OneToOneField(
        "self", null=True, blank=True, on_delete=models.PROTECT, related_name="superseded_by",
        verbose_name="substitui",
    )
    status_reason = models.TextField("motivo da situação", blank=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["municipality", "number"], name="alvara_number_per_municipality")]
        # the expiry job's own-validity pass, per municipality (see Authorization's index)
        indexes = [models.Index(fields=["municipality", "valid_until"], name="open_alvara_due_idx",
                                condition=models.Q(status__in=["active", "suspended", "retained"]))]
        verbose_name = "alvará"
        verbose_name_plural = "alvarás"
        ordering = ["-issued_at", "-id"]
        triggers = _never_deleted("alvara")

    def __str__(self) -> str:
        return f"{self.doc_name} nº {self.number}"


class GrantBar(TenantModel):
    """A person barred from new grants until a date (cassação, revocation)."""

    cpf = models.CharField("CPF", max_length=11, db_index=True)
    person = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="grant_bars"
    )
    until = models.DateField("impedido até", null=True, blank=True, help_text="Vazio = sem prazo.")
    reason = models.TextField("motivo")
    legal_basis = models.CharField("base legal", max_length=300)
    source = models.CharField("origem", max_length=100, blank=True)
    created_at = models.DateTimeField("registrado em", default=timezone.now)
    lifted_on = models.DateField("levantado em", null=True, blank=True,
                                 help_text="Quando a decisão que o causou é reformada em recurso.")
    lifted_reason = models.TextField("motivo do levantamento", blank=True)

    class Meta:
        verbose_name = "impedimento"
        verbose_name_plural = "impedimentos"

    def __str__(self) -> str:
        return f"Impedimento até {self.until or 'indeterminado'}"


class GrantLock(TenantModel):
    """One row per modality, locked (SELECT … FOR UPDATE) while a grant is decided against the quota."""

    modality = models.CharField("modalidade", max_length=10, choices=Modality.choices)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["municipality", "modality"], name="grantlock_modality_per_municipality")]
        verbose_name = "trava de cota"
        verbose_name_plural = "travas de cota"

    def __str__(self) -> str:
        return self.modality


class AmendmentKind(models.TextChoices):
    SUBSTITUTION = "substitution", "substituição de veículo"
    AUXILIARY_ADD = "auxiliary_add", "inclusão de condutor auxiliar"
    AUXILIARY_REMOVE = "auxiliary_remove", "exclusão de condutor auxiliar"
    TRANSFER = "transfer", "transferência"
    SUSPENSION = "suspension", "suspensão"
    CASSATION = "cassation", "cassação"
    RESTORATION = "restoration", "restabelecimento (cassação reformada)"


class Amendment(TenantModel):
    """An act of amendment (the pack's apostila or portaria de alteração) to a grant act.

    The grant act stays as it was issued; every later change to what it certifies (vehicle,
    drivers, holder, status) is a new act with its own number and verification code, citing the
    act it amends, frozen and signed like the act. Never edited or deleted.
    """

    number = models.CharField("número", max_length=12)
    act_name = models.CharField("ato", max_length=80)
    kind = models.CharField("alteração", max_length=20, choices=AmendmentKind.choices)
    authorization = models.ForeignKey(
        Authorization, on_delete=models.PROTECT, related_name="amendments", verbose_name="ato alterado",
    )
    changes = models.JSONField("o que mudou", default=list,
                               help_text="[{label, before, after}] — o que o ato altera, em palavras.")
    reason = models.TextField("motivo")
    source = models.CharField("origem", max_length=100, blank=True, help_text="Pedido ou auto que o motivou.")
    legal_basis = models.CharField("base legal", max_length=300)
    alvara = models.ForeignKey(
        Alvara, null=True, blank=True, on_delete=models.PROTECT, related_name="amendments",
        verbose_name="alvará emitido com a alteração",
    )
    verification_code = models.CharField("código de verificação", max_length=14, unique=True)
    issued_at = models.DateTimeField("emitido em", default=timezone.now)
    issued_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="+",
        verbose_name="emitido por",
    )

    class Meta:
        constraints = [models.UniqueConstraint(fields=["municipality", "number"], name="amendment_number_per_municipality")]
        verbose_name = "ato de alteração"
        verbose_name_plural = "atos de alteração"
        ordering = ["issued_at", "id"]
        # an issued act: PostgreSQL refuses to change or delete it (a correction is a new act)
        triggers = [pgtrigger.Protect(name="amendment_immutable", operation=pgtrigger.Update | pgtrigger.Delete)]

    def __str__(self) -> str:
        return f"{self.act_name} nº {self.number}"


class GrantTally(TenantModel):
    """The public statistics' summary of the grants: how many there are per modality, status
    and local month of issue, and the sum of their local issue days (days since 1970-01-01) for
    the average age. Kept by database triggers on the grants (``licensing.tallies``), in
    the statement that changes them: never written by the application, never out of step."""

    modality = models.CharField("modalidade", max_length=10, choices=Modality.choices)
    status = models.CharField("situação", max_length=12, choices=AuthorizationStatus.choices)
    month = models.DateField("mês de emissão")
    n = models.BigIntegerField("outorgas", default=0)
    day_sum = models.BigIntegerField("soma dos dias de emissão", default=0)

    class Meta:
        verbose_name = "contagem de outorgas"
        verbose_name_plural = "contagens de outorgas"
        constraints = [models.UniqueConstraint(fields=["municipality", "modality", "status", "month"],
                                               name="granttally_key")]

    def __str__(self) -> str:
        return f"{self.modality}/{self.status}/{self.month:%m-%Y}: {self.n}"
