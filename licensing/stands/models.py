"""Taxi stands (pontos) and the grants assigned to them."""

from __future__ import annotations

from django.db import models
from django.utils import timezone

from portal.models import TenantModel


class TaxiStand(TenantModel):
    """A ponto de táxi / mototáxi with its capacity (places)."""

    name = models.CharField("nome", max_length=120)
    location = models.CharField("localização", max_length=250)
    capacity = models.PositiveSmallIntegerField("vagas")
    modality = models.CharField("modalidade", max_length=10, blank=True,
                                help_text="Vazio = qualquer modalidade.")
    is_active = models.BooleanField("ativo", default=True)
    is_example = models.BooleanField("exemplo do pacote", default=False)
    created_at = models.DateTimeField("criado em", default=timezone.now)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["municipality", "name"], name="taxistand_name_per_municipality")]
        verbose_name = "ponto de táxi"
        verbose_name_plural = "pontos de táxi"
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name


class AssignmentStatus(models.TextChoices):
    ACTIVE = "active", "no ponto"
    WAITING = "waiting", "aguardando vaga"
    ENDED = "ended", "encerrada"


class StandAssignment(TenantModel):
    """A holder's place (or place in the waiting list) at a stand."""

    stand = models.ForeignKey(TaxiStand, on_delete=models.PROTECT, related_name="assignments", verbose_name="ponto")
    authorization = models.ForeignKey(
        "licensing.Authorization", on_delete=models.PROTECT, related_name="stand_assignments",
        verbose_name="autorização",
    )
    status = models.CharField("situação", max_length=10, choices=AssignmentStatus.choices, db_index=True)
    registered_on = models.DateField(
        "registro no cadastro de autorizatários",
        help_text="Tempo de registro usado para redução ou ampliação de vagas.",
    )
    vehicle_year = models.PositiveSmallIntegerField("ano de fabricação do veículo", null=True, blank=True)
    started_at = models.DateTimeField("desde", default=timezone.now)
    ended_at = models.DateTimeField("encerrada em", null=True, blank=True)
    end_reason = models.CharField("motivo do encerramento", max_length=250, blank=True)

    class Meta:
        verbose_name = "designação de ponto"
        verbose_name_plural = "designações de ponto"
        ordering = ["stand", "registered_on", "id"]
        constraints = [
            models.UniqueConstraint(
                fields=["authorization"], condition=models.Q(status__in=["active", "waiting"]),
                name="one_open_stand_assignment",
            )
        ]

    def __str__(self) -> str:
        return f"{self.authorization} em {self.stand}"
