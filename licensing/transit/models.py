"""Collective transport: concessionaires, concessions of bus lines, lines and their itineraries,
fares, buses, interventions, default proceedings and user complaints.

Shown only when the active pack has a ``[collective_transport]`` section. State changes
happen only in ``licensing.transit.services``, each with an audit entry; decrees, fares and
approved itineraries are never edited in place (a new version supersedes them by date).
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils import timezone

from fleet.models import VehicleBase
from portal.models import TenantModel
from portal.numbers import brl
from portal.validators import validate_cnpj, validate_cpf

__all__ = [
    "BidderStatus",
    "Bus",
    "BusFare",
    "BusLine",
    "BusStatus",
    "ClassifiedBidder",
    "Complaint",
    "ComplaintStatus",
    "Concession",
    "ConcessionStatus",
    "CONCESSION_TRANSITIONS",
    "Concessionaire",
    "ContractClauseReview",
    "DefaultProceeding",
    "DefaultStatus",
    "DEFAULT_TRANSITIONS",
    "FareZone",
    "Intervention",
    "InterventionStatus",
    "INTERVENTION_TRANSITIONS",
    "Itinerary",
    "ItinerarySegment",
    "ItineraryStatus",
]


def category_label(code: str) -> str:
    """The pack's label of a vehicle category (art. 2), or the code itself."""
    from portal import regulation

    pack = regulation.current(required=False)
    for entry in ((pack.collective_transport or {}).get("categories", []) if pack else []):
        if entry.get("code") == code:
            return entry.get("label", code)
    return code


def km_text(value) -> str:
    """12.500 → "12,5"; 13.000 → "13" (km without trailing zeros, decimal comma)."""
    if value is None:
        return ""
    text = f"{value.normalize():f}" if hasattr(value, "normalize") else str(value)
    return text.replace(".", ",")


class FareZone(models.TextChoices):
    URBAN = "urban", "urbano"
    RURAL = "rural", "rural"


class Concessionaire(TenantModel):
    """A company (pessoa jurídica) that bids for and operates bus lines (art. 1)."""

    legal_name = models.CharField("razão social", max_length=200)
    trade_name = models.CharField("nome fantasia", max_length=200, blank=True)
    cnpj = models.CharField("CNPJ", max_length=14, validators=[validate_cnpj])
    registry_number = models.CharField("registro na Junta Comercial (NIRE)", max_length=30)
    municipal_registration = models.CharField("inscrição municipal", max_length=30, blank=True)
    address = models.CharField("endereço da sede", max_length=300)
    email = models.EmailField("e-mail", blank=True)
    phone = models.CharField("telefone", max_length=20, blank=True)
    representative_name = models.CharField("representante legal", max_length=200)
    representative_cpf = models.CharField("CPF do representante legal", max_length=11, validators=[validate_cpf])
    representative_role = models.CharField("cargo do representante", max_length=100, blank=True)
    created_at = models.DateTimeField("cadastrada em", default=timezone.now)
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT,
                                   related_name="+", verbose_name="cadastrada por")

    class Meta:
        constraints = [models.UniqueConstraint(fields=["municipality", "cnpj"], name="concessionaire_cnpj_per_municipality")]
        verbose_name = "empresa concessionária"
        verbose_name_plural = "empresas concessionárias"
        ordering = ["legal_name", "id"]

    def __str__(self) -> str:
        return self.trade_name or self.legal_name

    @property
    def display_cnpj(self) -> str:
        d = self.cnpj
        if len(d) != 14:
            return d
        return f"{d[:2]}.{d[2:5]}.{d[5:8]}/{d[8:12]}-{d[12:]}"


class ConcessionStatus(models.TextChoices):
    AWAITING_CONTRACT = "awaiting_contract", "aguardando assinatura do contrato"
    AWAITING_START = "awaiting_start", "aguardando início do serviço"
    IN_SERVICE = "in_service", "em operação"
    INTERVENED = "intervened", "sob intervenção"
    BIDDING_FAILED = "bidding_failed", "sem classificado: nova licitação"
    LAPSED = "lapsed", "caducada"
    EXTINCT = "extinct", "extinta"


CONCESSION_TRANSITIONS: dict[str, set[str]] = {
    ConcessionStatus.AWAITING_CONTRACT: {ConcessionStatus.AWAITING_START, ConcessionStatus.BIDDING_FAILED},
    ConcessionStatus.AWAITING_START: {ConcessionStatus.IN_SERVICE, ConcessionStatus.LAPSED,
                                      ConcessionStatus.EXTINCT},
    ConcessionStatus.IN_SERVICE: {ConcessionStatus.INTERVENED, ConcessionStatus.EXTINCT},
    ConcessionStatus.INTERVENED: {ConcessionStatus.IN_SERVICE, ConcessionStatus.EXTINCT},
    ConcessionStatus.BIDDING_FAILED: set(),
    # art. 22, §ún.: after the lapse the remaining classified may be called
    ConcessionStatus.LAPSED: {ConcessionStatus.AWAITING_CONTRACT},
    ConcessionStatus.EXTINCT: set(),
}

ACTIVE_CONCESSION_STATUSES = (ConcessionStatus.IN_SERVICE, ConcessionStatus.INTERVENED)


class Concession(TenantModel):
    """A concession of bus line(s) after bidding (art. 1, 3), formalized by contract (art. 8)."""

    number = models.CharField("número", max_length=12)
    object = models.TextField("objeto")
    category = models.CharField("categoria do veículo", max_length=20)
    justification_act = models.CharField("ato de justificação da outorga", max_length=200, blank=True,
                                         help_text="Art. 3, §1º: publicado na imprensa oficial.")
    bidding_reference = models.CharField("licitação (concorrência)", max_length=100)
    bidding_closed_on = models.DateField("encerramento da licitação")
    status = models.CharField("situação", max_length=20, choices=ConcessionStatus.choices,
                              default=ConcessionStatus.AWAITING_CONTRACT, db_index=True)
    concessionaire = models.ForeignKey(Concessionaire, null=True, blank=True, on_delete=models.PROTECT,
                                       related_name="concessions", verbose_name="concessionária")
    contract_number = models.CharField("número do contrato", max_length=40, blank=True)
    contract_signed_on = models.DateField("contrato assinado em", null=True, blank=True)
    service_started_on = models.DateField("serviço iniciado em", null=True, blank=True)
    term_start = models.DateField("início do prazo", null=True, blank=True)
    term_end = models.DateField("fim do prazo", null=True, blank=True)
    renewals = models.PositiveSmallIntegerField("renovações", default=0)
    extinction_cause = models.CharField("causa da extinção", max_length=30, blank=True)
    extinction_act = models.CharField("ato de extinção", max_length=200, blank=True)
    extinct_on = models.DateField("extinta em", null=True, blank=True)
    status_reason = models.TextField("motivo da situação", blank=True)
    status_changed_at = models.DateTimeField("situação alterada em", null=True, blank=True)
    created_at = models.DateTimeField("cadastrada em", default=timezone.now)
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT,
                                   related_name="+", verbose_name="cadastrada por")

    class Meta:
        verbose_name = "concessão"
        verbose_name_plural = "concessões"
        ordering = ["-created_at", "-id"]
        constraints = [
            models.UniqueConstraint(fields=["municipality", "number"], name="concession_number_per_municipality"),
            models.CheckConstraint(
                condition=models.Q(term_end__isnull=True) | models.Q(term_end__gte=models.F("term_start")),
                name="transit_concession_term_order",
            ),
        ]

    def __str__(self) -> str:
        return f"Concessão nº {self.number}"

    @property
    def category_label(self) -> str:
        return category_label(self.category)


class ContractClauseReview(TenantModel):
    """The staff's check of which essential clauses (art. 9) the signed contract contains.

    A record of its own, beside the contract and never inside it: the contract PDF is frozen at
    signing (portal.issued), while this check may be done, or redone, later. Each check is a new
    row (the latest one is in force); none is edited.
    """

    concession = models.ForeignKey(Concession, on_delete=models.PROTECT, related_name="clause_reviews",
                                   verbose_name="concessão")
    present = models.JSONField("cláusulas que constam do contrato", default=list,
                               help_text="Códigos (incisos) das cláusulas essenciais conferidas.")
    recorded_at = models.DateTimeField("conferida em", default=timezone.now)
    recorded_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT,
                                    related_name="+", verbose_name="conferida por")

    class Meta:
        verbose_name = "conferência das cláusulas essenciais"
        verbose_name_plural = "conferências das cláusulas essenciais"
        ordering = ["-recorded_at", "-id"]

    def __str__(self) -> str:
        return f"Cláusulas da concessão {self.concession_id} em {self.recorded_at:%d/%m/%Y}"


class BidderStatus(models.TextChoices):
    WAITING = "waiting", "aguardando"
    CALLED = "called", "convocada"
    RENOUNCED = "renounced", "renunciou (prazo perdido)"
    CONTRACTED = "contracted", "contratada"
    LAPSED = "lapsed", "contratada; delegação caducou"


class ClassifiedBidder(TenantModel):
    """A company in the bidding's classification order (art. 5, 8 §ún.)."""

    concession = models.ForeignKey(Concession, on_delete=models.CASCADE, related_name="classified",
                                   verbose_name="concessão")
    concessionaire = models.ForeignKey(Concessionaire, on_delete=models.PROTECT, related_name="classifications",
                                       verbose_name="empresa")
    position = models.PositiveSmallIntegerField("classificação")
    status = models.CharField("situação", max_length=12, choices=BidderStatus.choices, default=BidderStatus.WAITING)
    called_on = models.DateField("convocada em", null=True, blank=True)
    renounced_on = models.DateField("renúncia em", null=True, blank=True)

    class Meta:
        verbose_name = "classificada"
        verbose_name_plural = "classificadas"
        ordering = ["concession", "position"]
        constraints = [
            models.UniqueConstraint(fields=["concession", "position"], name="transit_bidder_position_unique"),
            models.UniqueConstraint(fields=["concession", "concessionaire"], name="transit_bidder_company_unique"),
            models.UniqueConstraint(fields=["concession"], condition=models.Q(status="called"),
                                    name="transit_one_called_bidder"),
        ]

    def __str__(self) -> str:
        return f"{self.position}º {self.concessionaire}"


class BusLine(TenantModel):
    """A regular bus line of a concession."""

    concession = models.ForeignKey(Concession, on_delete=models.PROTECT, related_name="lines",
                                   verbose_name="concessão")
    code = models.CharField("código", max_length=20)
    name = models.CharField("nome", max_length=200)
    created_at = models.DateTimeField("cadastrada em", default=timezone.now)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["municipality", "code"], name="busline_code_per_municipality")]
        verbose_name = "linha"
        verbose_name_plural = "linhas"
        ordering = ["code"]

    def __str__(self) -> str:
        return f"Linha {self.code} — {self.name}"


class ItineraryStatus(models.TextChoices):
    PROPOSED = "proposed", "proposta"
    APPROVED = "approved", "aprovada"
    DISCARDED = "discarded", "descartada"


class Itinerary(TenantModel):
    """A version of a line's itinerary and schedule. Version 1 is the original (contract).

    Changes (art. 7) are new versions, approved by amendment and announced at least N
    days before ``effective_from``; the version in force is the latest approved one whose
    ``effective_from`` has come.
    """

    line = models.ForeignKey(BusLine, on_delete=models.CASCADE, related_name="itineraries", verbose_name="linha")
    version = models.PositiveSmallIntegerField("versão")
    status = models.CharField("situação", max_length=12, choices=ItineraryStatus.choices,
                              default=ItineraryStatus.PROPOSED)
    total_km = models.DecimalField("extensão (km)", max_digits=9, decimal_places=3)
    changed_km = models.DecimalField("percurso alterado (km)", max_digits=9, decimal_places=3, default=0)
    change_ratio = models.DecimalField("proporção do trajeto original", max_digits=7, decimal_places=4, default=0)
    schedule = models.JSONField("horários", default=dict, blank=True)
    reason = models.TextField("justificativa", blank=True)
    amendment_reference = models.CharField("termo aditivo", max_length=100, blank=True)
    announced_on = models.DateField("anunciada em", null=True, blank=True)
    effective_from = models.DateField("vigora a partir de", null=True, blank=True)
    approved_at = models.DateTimeField("aprovada em", null=True, blank=True)
    approved_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT,
                                    related_name="+", verbose_name="aprovada por")
    created_at = models.DateTimeField("registrada em", default=timezone.now)
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT,
                                   related_name="+", verbose_name="registrada por")

    class Meta:
        verbose_name = "itinerário"
        verbose_name_plural = "itinerários"
        ordering = ["line", "version"]
        constraints = [
            models.UniqueConstraint(fields=["line", "version"], name="transit_itinerary_version_unique"),
        ]

    def __str__(self) -> str:
        return f"Itinerário v{self.version} da linha {self.line.code}"

    @property
    def is_original(self) -> bool:
        return self.version == 1

    @property
    def total_km_text(self) -> str:
        return km_text(self.total_km)

    @property
    def changed_km_text(self) -> str:
        return km_text(self.changed_km)


class ItinerarySegment(TenantModel):
    """An ordered stretch between two stops, with its length and zone (art. 16)."""

    itinerary = models.ForeignKey(Itinerary, on_delete=models.CASCADE, related_name="segments",
                                  verbose_name="itinerário")
    order = models.PositiveSmallIntegerField("ordem")
    origin = models.CharField("de (parada)", max_length=120)
    destination = models.CharField("até (parada)", max_length=120)
    length_km = models.DecimalField("extensão (km)", max_digits=8, decimal_places=3)
    zone = models.CharField("zona", max_length=5, choices=FareZone.choices, default=FareZone.URBAN)

    class Meta:
        verbose_name = "trecho"
        verbose_name_plural = "trechos"
        ordering = ["itinerary", "order"]
        constraints = [
            models.UniqueConstraint(fields=["itinerary", "order"], name="transit_segment_order_unique"),
            models.CheckConstraint(condition=models.Q(length_km__gt=0), name="transit_segment_length_positive"),
        ]

    def __str__(self) -> str:
        return f"{self.origin} → {self.destination} ({self.length_text} km)"

    @property
    def length_text(self) -> str:
        return km_text(self.length_km)


class BusFare(TenantModel):
    """A fare of a line for a zone, set by decree (art. 17, §ún.); effective by date."""

    line = models.ForeignKey(BusLine, on_delete=models.PROTECT, related_name="fares", verbose_name="linha")
    zone = models.CharField("trecho", max_length=5, choices=FareZone.choices)
    amount = models.DecimalField("valor da passagem", max_digits=8, decimal_places=2)
    decree = models.CharField("decreto", max_length=100)
    announced_on = models.DateField("anunciada em")
    effective_from = models.DateField("vigora a partir de", db_index=True)
    legal_basis = models.CharField("base legal", max_length=300)
    created_at = models.DateTimeField("registrada em", default=timezone.now)
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT,
                                   related_name="+", verbose_name="registrada por")

    class Meta:
        verbose_name = "tarifa de linha"
        verbose_name_plural = "tarifas de linha"
        ordering = ["line", "zone", "-effective_from", "-id"]
        constraints = [
            models.CheckConstraint(condition=models.Q(amount__gt=0), name="transit_fare_positive"),
            models.CheckConstraint(condition=models.Q(effective_from__gte=models.F("announced_on")),
                                   name="transit_fare_effective_after_announcement"),
        ]

    def __str__(self) -> str:
        return f"{self.line.code} {self.get_zone_display()} {brl(self.amount)} ({self.decree})"


class BusStatus(models.TextChoices):
    ACTIVE = "active", "em serviço"
    WITHDRAWN = "withdrawn", "retirado"


class Bus(VehicleBase):
    """A vehicle of a concession, registered in the category of the contract (art. 2)."""

    plate = models.CharField("placa", max_length=7)
    category = models.CharField("categoria", max_length=20)
    seated = models.PositiveSmallIntegerField("lugares sentados")
    standing = models.PositiveSmallIntegerField("lugares em pé", default=0)
    concession = models.ForeignKey(Concession, on_delete=models.PROTECT, related_name="buses",
                                   verbose_name="concessão")
    make = models.CharField("marca", max_length=60, blank=True)
    model = models.CharField("modelo", max_length=80, blank=True)
    manufacture_year = models.PositiveSmallIntegerField("ano de fabricação", null=True, blank=True)
    status = models.CharField("situação", max_length=10, choices=BusStatus.choices, default=BusStatus.ACTIVE)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["municipality", "plate"], name="bus_plate_per_municipality")]
        verbose_name = "veículo de transporte coletivo"
        verbose_name_plural = "veículos de transporte coletivo"
        ordering = ["plate"]

    def __str__(self) -> str:
        return self.display_plate

    @property
    def category_label(self) -> str:
        return category_label(self.category)


class InterventionStatus(models.TextChoices):
    DECLARED = "declared", "decretada"
    PROCEDURE_OPEN = "procedure_open", "procedimento instaurado"
    UPHELD = "upheld", "causas comprovadas"
    ANNULLED = "annulled", "nula: serviço devolvido"
    INVALID = "invalid", "inválida por prazo"
    ENDED = "ended", "encerrada com a extinção da concessão"


INTERVENTION_TRANSITIONS: dict[str, set[str]] = {
    InterventionStatus.DECLARED: {InterventionStatus.PROCEDURE_OPEN, InterventionStatus.INVALID,
                                  InterventionStatus.ENDED},
    InterventionStatus.PROCEDURE_OPEN: {InterventionStatus.UPHELD, InterventionStatus.ANNULLED,
                                        InterventionStatus.INVALID, InterventionStatus.ENDED},
    InterventionStatus.UPHELD: set(),
    InterventionStatus.ANNULLED: set(),
    InterventionStatus.INVALID: set(),
    InterventionStatus.ENDED: set(),
}
OPEN_INTERVENTION_STATUSES = (InterventionStatus.DECLARED, InterventionStatus.PROCEDURE_OPEN)


class Intervention(TenantModel):
    """Intervention by decree (art. 23): interventor, term, objectives; procedure (art. 24)."""

    concession = models.ForeignKey(Concession, on_delete=models.PROTECT, related_name="interventions",
                                   verbose_name="concessão")
    decree = models.CharField("decreto", max_length=100)
    declared_on = models.DateField("declarada em")
    interventor = models.CharField("interventor", max_length=200)
    term_days = models.PositiveIntegerField("prazo da intervenção (dias)")
    objectives = models.TextField("objetivos e limites da medida")
    grounds = models.JSONField("motivos", default=list, blank=True)
    status = models.CharField("situação", max_length=16, choices=InterventionStatus.choices,
                              default=InterventionStatus.DECLARED, db_index=True)
    procedure_reference = models.CharField("procedimento administrativo", max_length=100, blank=True)
    procedure_opened_on = models.DateField("procedimento instaurado em", null=True, blank=True)
    concluded_on = models.DateField("procedimento concluído em", null=True, blank=True)
    conclusion = models.TextField("conclusão", blank=True)
    open_overdue_flagged = models.BooleanField("atraso na instauração sinalizado", default=False)
    created_at = models.DateTimeField("registrada em", default=timezone.now)
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT,
                                   related_name="+", verbose_name="registrada por")

    class Meta:
        verbose_name = "intervenção"
        verbose_name_plural = "intervenções"
        ordering = ["-declared_on", "-id"]
        constraints = [
            models.UniqueConstraint(fields=["concession"], condition=models.Q(status__in=["declared", "procedure_open"]),
                                    name="transit_one_open_intervention"),
        ]

    def __str__(self) -> str:
        return f"Intervenção ({self.decree})"


class DefaultStatus(models.TextChoices):
    NOTIFIED = "notified", "notificada (prazo para correção)"
    CURED = "cured", "falhas corrigidas"
    OPEN = "open", "processo instaurado"
    PROVEN = "proven", "inadimplência comprovada"
    DISMISSED = "dismissed", "arquivado"


DEFAULT_TRANSITIONS: dict[str, set[str]] = {
    DefaultStatus.NOTIFIED: {DefaultStatus.CURED, DefaultStatus.OPEN},
    DefaultStatus.OPEN: {DefaultStatus.PROVEN, DefaultStatus.DISMISSED},
    DefaultStatus.CURED: set(),
    DefaultStatus.PROVEN: set(),
    DefaultStatus.DISMISSED: set(),
}


class DefaultProceeding(TenantModel):
    """Notice of failures with a period to cure, then the default proceeding (art. 20, §2–§4)."""

    concession = models.ForeignKey(Concession, on_delete=models.PROTECT, related_name="defaults",
                                   verbose_name="concessão")
    grounds = models.JSONField("fundamentos (art. 20, §1º)", default=list)
    details = models.TextField("descumprimentos comunicados")
    notified_on = models.DateField("comunicada em")
    cure_days = models.PositiveSmallIntegerField("prazo para correção (dias)")
    status = models.CharField("situação", max_length=10, choices=DefaultStatus.choices,
                              default=DefaultStatus.NOTIFIED, db_index=True)
    opened_on = models.DateField("processo instaurado em", null=True, blank=True)
    process_reference = models.CharField("processo administrativo", max_length=100, blank=True)
    concluded_on = models.DateField("decidido em", null=True, blank=True)
    decision = models.TextField("decisão", blank=True)
    created_at = models.DateTimeField("registrado em", default=timezone.now)
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT,
                                   related_name="+", verbose_name="registrado por")

    class Meta:
        verbose_name = "processo de inadimplência"
        verbose_name_plural = "processos de inadimplência"
        ordering = ["-notified_on", "-id"]

    def __str__(self) -> str:
        return f"Inadimplência notificada em {self.notified_on:%d/%m/%Y}"


class ComplaintStatus(models.TextChoices):
    OPEN = "open", "aberta"
    ANSWERED = "answered", "respondida"


class Complaint(TenantModel):
    """A user's complaint about a line (art. 11, VII), answered by the Município."""

    line = models.ForeignKey(BusLine, on_delete=models.PROTECT, related_name="complaints", verbose_name="linha")
    protocol = models.CharField("protocolo", max_length=20)
    access_code = models.CharField("código de consulta", max_length=14,
                                   help_text="Dado a quem reclamou, para consultar a resposta sem login.")
    name = models.CharField("nome", max_length=200, blank=True)
    contact = models.CharField("contato (e-mail ou telefone)", max_length=200, blank=True)
    occurred_on = models.DateField("data do ocorrido", null=True, blank=True)
    text = models.TextField("reclamação")
    status = models.CharField("situação", max_length=10, choices=ComplaintStatus.choices,
                              default=ComplaintStatus.OPEN, db_index=True)
    created_at = models.DateTimeField("registrada em", default=timezone.now)
    answer = models.TextField("resposta", blank=True)
    answered_at = models.DateTimeField("respondida em", null=True, blank=True)
    answered_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT,
                                    related_name="+", verbose_name="respondida por")

    class Meta:
        constraints = [models.UniqueConstraint(fields=["municipality", "protocol"], name="complaint_protocol_per_municipality")]
        verbose_name = "reclamação de usuário"
        verbose_name_plural = "reclamações de usuários"
        ordering = ["-created_at", "-id"]

    def __str__(self) -> str:
        return f"Reclamação {self.protocol}"
