"""Tariff tables set by decree, kept as history: a new table supersedes by its effective date."""

from __future__ import annotations

import pgtrigger
from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import models
from django.utils import timezone

from portal import tenancy
from portal.models import TenantModel


class TariffModality(models.TextChoices):
    TAXI = "taxi", "Táxi"
    MOTOTAXI = "mototaxi", "Mototáxi"
    BUS = "bus", "Ônibus"


class TariffStructure(models.TextChoices):
    BASE_PLUS_KM = "base_plus_km", "Tarifa básica + quilômetro rodado"
    FLAGS = "flags", "Bandeirada + bandeira 1 / bandeira 2"
    MAX_FARE_BANDS = "max_fare_bands", "Tarifa máxima por faixa de distância"
    UNITS = "units", "Unidades taximétricas"
    ZONES = "zones", "Tarifa por zona (urbana / rural)"


class TariffSource(models.TextChoices):
    PACK = "pack", "pacote de regulamentação"
    PUBLISHED = "published", "publicada no portal"


class TariffTableQuerySet(tenancy.TenantQuerySet):
    def update(self, **kwargs):
        raise ValidationError(
            "Uma tabela de tarifas publicada não pode ser alterada: publique uma nova."
        )

    def delete(self):
        raise ValidationError(
            "Uma tabela de tarifas publicada não pode ser apagada: publique uma nova."
        )


class TariffTable(TenantModel):
    """One tariff table of one modality, as set by a decree (never edited in place)."""

    municipality = models.ForeignKey(
        "portal.Municipality",
        on_delete=models.PROTECT,
        related_name="tariff_tables",
        default=tenancy.default_municipality_id,
        verbose_name="município",
    )
    modality = models.CharField("modalidade", max_length=10, choices=TariffModality.choices)
    decree = models.CharField("decreto", max_length=200)
    published_on = models.DateField("publicado em")
    effective_from = models.DateField("em vigor a partir de")
    structure = models.CharField("estrutura", max_length=20, choices=TariffStructure.choices)
    components = models.JSONField("componentes", default=dict)
    legal_basis = models.CharField("base legal", max_length=300)
    is_example = models.BooleanField("valor de exemplo", default=False)
    source = models.CharField(
        "origem", max_length=10, choices=TariffSource.choices, default=TariffSource.PUBLISHED
    )
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="+",
        verbose_name="publicada por",
    )
    created_at = models.DateTimeField("registrada em", default=timezone.now)

    objects = tenancy.tenant_manager(TariffTableQuerySet)
    all_tenants = tenancy.all_tenants_manager(TariffTableQuerySet)  # noqa: DJ012 - a manager

    class Meta:
        verbose_name = "tabela de tarifas"
        verbose_name_plural = "tabelas de tarifas"
        ordering = ["modality", "-effective_from", "-id"]
        constraints = [
            models.UniqueConstraint(
                fields=["municipality", "modality", "effective_from"],
                name="one_tariff_per_modality_and_date",
            ),
            models.CheckConstraint(
                condition=models.Q(effective_from__gte=models.F("published_on")),
                name="tariff_effective_after_publication",
            ),
        ]
        triggers = [
            pgtrigger.Protect(
                name="tariff_append_only", operation=pgtrigger.Update | pgtrigger.Delete
            ),
        ]

    def __str__(self) -> str:
        return (
            f"{self.get_modality_display()} — {self.decree} (desde {self.effective_from:%d/%m/%Y})"
        )

    def save(self, *args, **kwargs):
        if self.pk is not None and not kwargs.get("force_insert"):
            raise ValidationError(
                "Uma tabela de tarifas publicada não pode ser alterada: publique uma nova."
            )
        super().save(*args, **kwargs)

    def delete(self, *args, **kwargs):
        raise ValidationError(
            "Uma tabela de tarifas publicada não pode ser apagada: publique uma nova."
        )
