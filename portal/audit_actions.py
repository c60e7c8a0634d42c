"""Every action the code writes to the audit log, with its label in Portuguese.

One vocabulary for services (``audit_log(action=AuditAction.FARE_SET, ...)``), the history
pages (``AuditAction.label_of(entry.action)``) and ``tests/test_structure_snapshot.py``. A new
action is one new member here (and a reviewed update of the structure snapshot). While other
branches still pass plain strings, ``audit_log`` accepts them, but refuses a non-member when
running the tests (``settings.TESTING``).
"""

from __future__ import annotations

from django.db import models


class AuditAction(models.TextChoices):
    ACCOUNT_CLAIMED = "account_claimed", "Conta assumida"
    ACCOUNT_CREATED = "account_created", "Conta criada"
    ALVARA_ISSUED = "alvara_issued", "Alvará emitido"
    ALVARA_REISSUED = "alvara_reissued", "Alvará reemitido"
    ALVARA_STATUS = "alvara_status", "Situação do alvará alterada"
    APPEAL_JUDGED = "appeal_judged", "Recurso julgado"
    APPEAL_SUSPENSIVE_EFFECT = "appeal_suspensive_effect", "Efeito suspensivo do recurso decidido"
    APPLICATION_CREATED = "application_created", "Rascunho criado"
    APPLICATION_DRAFT_SAVED = "application_draft_saved", "Rascunho salvo"
    APPLICATION_STATUS = "application_status", "Situação alterada"
    APPLICATION_WITHDRAWN = "application_withdrawn", "Desistência registrada"
    AUTHORIZATION_ISSUED = "authorization_issued", "Autorização emitida"
    AUTHORIZATION_STATUS = "authorization_status", "Situação da autorização alterada"
    AUTHORIZATION_SUSPENSION_EXTENDED = "authorization_suspension_extended", "Suspensão da autorização prorrogada"
    AUTHORIZATION_VEHICLE_SUBSTITUTED = "authorization_vehicle_substituted", "Veículo da autorização substituído"
    AUXILIARY_ADDED = "auxiliary_added", "Condutor auxiliar incluído"
    AUXILIARY_REMOVAL_LATE = "auxiliary_removal_late", "Comunicação fora do prazo registrada"
    AUXILIARY_REMOVED = "auxiliary_removed", "Condutor auxiliar excluído"
    AUXILIARY_REREGISTERED = "auxiliary_reregistered", "Condutor auxiliar recadastrado"
    AUXILIARY_REREGISTRATION_OVERDUE = "auxiliary_reregistration_overdue", "Recadastramento de condutor auxiliar vencido"
    BIDDER_CALLED = "bidder_called", "Licitante convocado"
    BIDDER_RENOUNCED = "bidder_renounced", "Desistência do licitante"
    BUS_REGISTERED = "bus_registered", "Ônibus cadastrado"
    BUS_WITHDRAWN = "bus_withdrawn", "Ônibus retirado de circulação"
    BUSLINE_CREATED = "busline_created", "Linha cadastrada"
    CALL_OPENED = "call_opened", "Edital aberto"
    CALL_UPDATED = "call_updated", "Edital alterado"
    COMPLAINT_ANSWERED = "complaint_answered", "Reclamação respondida"
    COMPLAINT_FILED = "complaint_filed", "Reclamação registrada"
    COMPLIANCE_PROOF_ACCEPTED = "compliance_proof_accepted", "Comprovação de regularidade aceita"
    COMPLIANCE_PROOF_OVERDUE = "compliance_proof_overdue", "Comprovação de regularidade vencida"
    CONCESSION_CLAUSES = "concession_clauses", "Cláusulas essenciais conferidas"
    CONCESSION_CREATED = "concession_created", "Concessão criada"
    CONCESSION_RENEWED = "concession_renewed", "Concessão renovada"
    CONCESSION_STATUS = "concession_status", "Situação da concessão alterada"
    CONCESSIONAIRE_CREATED = "concessionaire_created", "Concessionária cadastrada"
    DEFAULT_NOTIFIED = "default_notified", "Inadimplência notificada"
    DEFAULT_STATUS = "default_status", "Situação do processo de inadimplência alterada"
    DOCUMENT_PURGED = "document_purged", "Documento eliminado (LGPD)"
    DOCUMENT_REVIEWED = "document_reviewed", "Documento analisado"
    DOCUMENT_UPLOADED = "document_uploaded", "Documento enviado"
    DOCUMENT_VIEWED = "document_viewed", "Documento consultado"
    EX_OFFICIO_REVIEW_OPENED = "ex_officio_review_opened", "Recurso de ofício aberto"
    FARE_SET = "fare_set", "Tarifa fixada"
    FEE_CANCELLED = "fee_cancelled", "Taxa cancelada"
    FEE_ISSUED = "fee_issued", "Taxa emitida"
    FEE_PAID = "fee_paid", "Taxa paga"
    FINE_ISSUED = "fine_issued", "Multa emitida"
    FINE_PAID = "fine_paid", "Multa paga"
    FISCAL_UNIT_VALUE_ADDED = "fiscal_unit_value_added", "Valor da unidade fiscal incluído"
    GRANT_BAR_CREATED = "grant_bar_created", "Impedimento de outorga registrado"
    GRANT_BAR_LIFTED = "grant_bar_lifted", "Impedimento de outorga encerrado"
    INFRACTION_APPEALED = "infraction_appealed", "Recurso interposto"
    INFRACTION_AWAITING_JUDGEMENT = "infraction_awaiting_judgement", "Aguardando julgamento"
    INFRACTION_CANCELLED = "infraction_cancelled", "Auto cancelado"
    INFRACTION_DEFENSE_FILED = "infraction_defense_filed", "Defesa prévia apresentada"
    INFRACTION_DISMISSED = "infraction_dismissed", "Julgado improcedente"
    INFRACTION_EFFECTS = "infraction_effects", "Efeitos aplicados"
    INFRACTION_EFFECTS_REVERTED = "infraction_effects_reverted", "Efeitos revertidos"
    INFRACTION_FINAL = "infraction_final", "Decisão definitiva"
    INFRACTION_ISSUED = "infraction_issued", "Auto lavrado"
    INFRACTION_NOTIFIED = "infraction_notified", "Notificação registrada"
    INFRACTION_UPHELD = "infraction_upheld", "Julgado procedente"
    INSPECTION_RECORDED = "inspection_recorded", "Vistoria registrada"
    INSPECTION_SCHEDULED = "inspection_scheduled", "Vistoria agendada"
    INTERVENTION_DECLARED = "intervention_declared", "Intervenção declarada"
    INTERVENTION_OPEN_OVERDUE = "intervention_open_overdue", "Intervenção aberta além do prazo"
    INTERVENTION_STATUS = "intervention_status", "Situação da intervenção alterada"
    ITINERARY_CHANGE_APPROVED = "itinerary_change_approved", "Alteração de itinerário aprovada"
    ITINERARY_CHANGE_DISCARDED = "itinerary_change_discarded", "Alteração de itinerário descartada"
    ITINERARY_CHANGE_PROPOSED = "itinerary_change_proposed", "Alteração de itinerário proposta"
    LEAVE_GRANTED = "leave_granted", "Licença concedida"
    LEAVE_OVERDUE = "leave_overdue", "Licença vencida sem retorno"
    LEAVE_RETURNED = "leave_returned", "Retorno da licença"
    LIFECYCLE_REQUEST_DECIDED = "lifecycle_request_decided", "Pedido decidido"
    LIFECYCLE_REQUEST_FILED = "lifecycle_request_filed", "Pedido protocolado"
    MUNICIPALITY_CHANGED = "municipality_changed", "Município alterado"
    PACK_LOADED = "pack_loaded", "Regulamento carregado"
    PARAMETER_VERSION_ADDED = "parameter_version_added", "Nova versão de parâmetro"
    PREPOSTO_APPOINTED = "preposto_appointed", "Preposto designado"
    PROFILE_UPDATED = "profile_updated", "Perfil atualizado"
    REQUIREMENT_RAISED = "requirement_raised", "Exigência registrada"
    STAND_ASSIGNED = "stand_assigned", "Ponto atribuído"
    STAND_ASSIGNMENT_ENDED = "stand_assignment_ended", "Atribuição de ponto encerrada"
    STAND_CAPACITY_CHANGED = "stand_capacity_changed", "Capacidade do ponto alterada"
    STAND_CREATED = "stand_created", "Ponto criado"
    STAND_PLACE_GRANTED = "stand_place_granted", "Vaga no ponto concedida"
    STAND_PLACE_LOST = "stand_place_lost", "Vaga no ponto perdida"
    STAND_SWAPPED = "stand_swapped", "Permuta de ponto"
    SUBSTITUTION_INSPECTION = "substitution_inspection", "Vistoria de substituição registrada"
    SUSPENSION_LIFTED = "suspension_lifted", "Suspensão encerrada"
    TARIFF_PUBLISHED = "tariff_published", "Tarifa publicada"
    TARIFF_SEEDED = "tariff_seeded", "Tarifa inicial carregada"
    TFF_ISSUED = "tff_issued", "DAM da TFF emitido"
    USER_CREATED_AS_AUXILIARY = "user_created_as_auxiliary", "Conta criada para condutor auxiliar"
    VEHICLE_REGISTERED = "vehicle_registered", "Veículo cadastrado"
    YEARLY_OBLIGATION_LATE = "yearly_obligation_late", "Apresentado depois do prazo"

    @classmethod
    def label_of(cls, action: str) -> str:
        """The label of an action; a name that is not (yet) a member is shown as written."""
        try:
            return str(cls(action).label)
        except ValueError:
            return action


# action → label, for views that look labels up in a dict
AUDIT_ACTION_LABELS: dict[str, str] = {a.value: str(a.label) for a in AuditAction}
