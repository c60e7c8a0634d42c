"""Success shapes of the enforcement API for the OpenAPI schema (the dicts of enforcement.api).
Keys are typed; what the pack shapes (a penalty, a catalogue entry's penalties, the allowed
actions of the procedure) is a free-form object."""

from __future__ import annotations

from portal.schema import day, flag, free, integer, moment, money, shape, text, texts


def _summary_fields() -> dict:
    return dict(
        id=integer(), number=text(), status=text(), status_label=text(), plate=text(), infraction_code=text(),
        codes=texts(), occurred_at=moment(), location=text(), holder=text(null=True),
        defense_deadline=day(null=True), appeal_deadline=day(null=True), penalty=free(null=True),
        next_step=text(null=True), defense_deadline_note=text(), appeal_deadline_note=text(),
        decision_notice_pending=flag(),
    )


INFRACTION_SUMMARY = shape("InfractionSummary", **_summary_fields())  # a ListAPIView: paginated by the schema
INFRACTION_ISSUED = shape("InfractionIssued", id=integer(), number=text(), status=text(),
                          replayed=flag(help_text="o mesmo envio (chave de envio) já tinha lavrado este auto"))
INFRACTION_DETAIL = shape(
    "InfractionDetail", **_summary_fields(),
    catalogue=free(help_text="as infrações do auto, como no catálogo"), description=text(), modality=text(),
    authorization=text(null=True), driver_cpf=text(), driver_name=text(), driver_is_auxiliary=flag(null=True),
    agent_registration=text(), alvara_retained=flag(null=True), signature_refused=flag(), created_at=moment(),
    final_on=day(null=True), appeal_instance=integer(null=True), suspension_until=day(null=True),
    cancel_reason=text(),
    notice=shape("InfractionNotice", null=True, number=text(), acknowledged_on=day(), refused=flag(),
                 published=flag()),
    defense=shape("InfractionDefense", null=True, text=text(), filed_at=moment(), filed_on=day(), channel=text(),
                  received_by=text(null=True)),
    defense_waiver=shape("InfractionDefenseWaiver", null=True, waived_on=day(), channel=text(), text=text()),
    decision_notices=shape("InfractionDecisionNotice", many=True, number=text(), instance=integer(),
                           decision=text(), acknowledged_on=day(), refused=flag(), published=flag(),
                           appeal_deadline=day(null=True)),
    periods=shape("ProcedurePeriod", many=True, code=text(), label=text(), start=day(null=True),
                  end=day(null=True), legal_basis=text(), counted=text(), state=text()),
    timeline=shape("ProcedureStep", many=True, date=day(null=True), label=text(), legal_basis=text()),
    allowed_actions=free(help_text="atos possíveis agora: code, label, by, until/from, legal_basis"),
    judgement=shape("InfractionJudgement", null=True, number=text(), upheld=flag(), grounds=text(),
                    penalty=free(null=True), recidivism_refs=free(null=True), decided_at=moment()),
    appeals=shape("InfractionAppeal", many=True, instance=integer(), ex_officio=flag(), authority=text(),
                  text=text(), filed_at=moment(null=True), filed_on=day(null=True), channel=text(),
                  granted=flag(null=True), grounds=text(), decided_at=moment(null=True), number=text(null=True)),
    fine=shape("InfractionFine", null=True, number=text(), amount=money(), due_date=day(null=True), paid=flag(),
               paid_on=day(null=True)),
    photos=shape("InfractionPhoto", many=True, id=integer(), url=text()),
    attachments=shape("InfractionAttachment", many=True, id=integer(), kind=text(), name=text(), url=text()),
    documents=free(help_text="documento (auto, notice, decision, dam) → endereço do PDF"),
    history=shape("InfractionHistoryEntry", many=True, at=moment(), action=text(), **{"from": text(), "to": text()},
                  actor=text(), reason=text()),
)
CATALOGUE = shape(
    "InfractionCatalogue",
    fiscal_unit=shape("FiscalUnit", null=True, name=text(null=True), value=money(), legal_basis=text(),
                      example=flag()),
    results=free(help_text="infrações do pacote: code, description, penalties, legal_basis"),
)
NOTIFIED = shape("InfractionNotified", status=text(), defense_deadline=day(null=True), defense_deadline_note=text())
DECISION_NOTICE = shape("DecisionNoticeRecorded", number=text(), decision=text(), instance=integer(),
                        appeal_deadline=day(null=True), appeal_deadline_note=text(), status=text())
WAIVED = shape("DefenseWaived", status=text(), waived_on=day())
PAPER_PIECE = shape("PaperPieceRecorded", id=integer(), status=text(), received_on=day(), channel=text(),
                    received_by=text())
HEARING = shape("ReviewHearingOpened", status=text(), hearing_deadline=day(null=True))
STATUS_ONLY = shape("InfractionStatus", status=text())
_REGULATION = dict(id=integer(), key=text(), number=text(), date=day(), effective_from=day(null=True), value=money(),
                   recorded_by=text(), recorded_at=moment())
REGULATION = shape("RecordedRegulation", **_REGULATION)
REGULATIONS = shape("RecordedRegulations", results=shape("RecordedRegulationItem", many=True, **_REGULATION),
                    missing=shape("MissingRegulation", many=True, key=text(), label=text(), legal_basis=text()))
DEFENSE_FILED = shape("DefenseFiled", id=integer(), status=text(), filed_at=moment())
JUDGED = shape("InfractionJudged", status=text(help_text="upheld | dismissed"), penalty=free(null=True),
               appeal_deadline=day(null=True), decision_notice_pending=flag(), missing_regulation=text(null=True),
               decision=text(), current_status=text(), ex_officio_review=flag())
APPEAL_FILED = shape("AppealFiled", id=integer(), status=text(), instance=integer(), authority=text())
APPEAL_JUDGED = shape("AppealJudged", granted=flag(), status=text(), penalty=free(null=True),
                      appeal_deadline=day(null=True), decision_notice_pending=flag(), decision=text(null=True))
SUSPENSIVE = shape("SuspensiveEffectGranted", status=text(), suspensive_effect=flag(),
                   authorization_status=text(null=True))
CANCELLED = shape("InfractionCancelled", status=text(), cancel_reason=text())
FINE_PAID = shape("FinePaid", number=text(), paid=flag(), paid_on=day(null=True))
REGULARISED = shape("SuspensionRegularised", authorization_status=text(), suspension_lifted=flag())
_GRANT_BRIEF = dict(id=integer(), number=text(), status=text(), status_label=text(), valid_until=day())
VEHICLE_STATUS = shape(
    "VehicleStatus", plate=text(), authorized=flag(), verdict=text(help_text="autorizado | irregular"),
    reasons=texts(),
    driver=shape("VehicleDriver", null=True, cpf=text(help_text="mascarado"), authorized=flag(), role=text(null=True),
                 reregistration=free(null=True), reregistration_overdue=flag(), notes=texts()),
    authorization=shape("VehicleAuthorization", null=True, id=integer(), number=text(), act=text(), modality=text(),
                        modality_label=text(), status=text(), status_label=text(), valid_from=day(),
                        valid_until=day(), suspended_until=day(null=True), holder=text()),
    drivers=shape("VehicleAuthorizedDriver", many=True, role=text(help_text="autorizatário | condutor auxiliar | preposto"),
                  name=text(), cpf=text(help_text="mascarado"),
                  photo_asked=flag(help_text="a lei pede foto do condutor (item marcado no pacote)"),
                  photo_legal_basis=text(),
                  photo_url=text(null=True, help_text="foto aceita no cadastro; só para agentes de fiscalização")),
    alvara=shape("VehicleAlvara", null=True, **_GRANT_BRIEF, person=text()),
    alvaras=shape("VehicleAlvaraItem", many=True, **_GRANT_BRIEF, person=text(), is_auxiliary=flag()),
    open_autos_count=integer(),
    open_autos=shape("VehicleOpenAuto", many=True, id=integer(), number=text(), status=text(), status_label=text(),
                     infraction_code=text(), occurred_at=moment()),
)
