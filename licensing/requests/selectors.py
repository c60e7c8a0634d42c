"""Reads of a grant's requests, auxiliary drivers and yearly obligations, shared by the HTML
views, the API and other apps."""

from __future__ import annotations

from django.db.models import Count, Q, QuerySet
from django.http import Http404

from licensing.fees.models import Fee
from licensing.grants.models import CURRENT_STATUSES, Authorization
from licensing.grants.selectors import DESK_ROLES, act_chain, authorizations_visible_to
from licensing.requests.models import (
    AuxiliaryDriver,
    AuxiliaryStatus,
    LeaveOfAbsence,
    LifecycleRequest,
    Preposto,
    RequestKind,
    RequestStatus,
    YearlyNotice,
    YearlyNoticeStage,
)
from licensing.requests.rules import auxiliary_reregistration_due, compliance_next_due, yearly_due
from licensing.stands.models import AssignmentStatus, StandAssignment
from portal import regulation
from portal.roles import Role, has_role


def authorization_for_filing(user, pk: int, kind: str) -> Authorization:
    """The grant if the user may file this kind of request on it: holder or desk; for the
    yearly re-registration, also an active auxiliary driver of the grant (404 otherwise)."""
    auth = authorizations_visible_to(user).filter(pk=pk).first()
    if auth is None and kind == RequestKind.AUXILIARY_REREGISTRATION:
        auth = Authorization.objects.select_related("holder", "vehicle").filter(
            pk=pk, auxiliary_drivers__person=user, auxiliary_drivers__status=AuxiliaryStatus.ACTIVE).first()
    if auth is None:
        raise Http404("Autorização não encontrada.")
    return auth


def requests_base() -> QuerySet[LifecycleRequest]:
    return LifecycleRequest.objects.select_related(
        "authorization", "authorization__holder", "authorization__vehicle", "filed_by", "decided_by"
    )


def requests_visible_to(user) -> QuerySet[LifecycleRequest]:
    qs = requests_base()
    if has_role(user, *DESK_ROLES):
        return qs
    if has_role(user, Role.AGENT):
        return qs.filter(kind=RequestKind.SUBSTITUTION)
    return qs.filter(Q(authorization__holder=user) | Q(filed_by=user))


def request_for(user, pk: int) -> LifecycleRequest:
    req = requests_visible_to(user).filter(pk=pk).first()
    if req is None:
        raise Http404("Pedido não encontrado.")
    return req


def requests_for_queue(*, status: str = "", kind: str = "", q: str = "", late: bool = False) -> QuerySet[LifecycleRequest]:
    """The clerk's queue: open first, oldest first; filters by status, kind, text."""
    qs = requests_base()
    if status in RequestStatus.values:
        qs = qs.filter(status=status)
    if kind in RequestKind.values:
        qs = qs.filter(kind=kind)
    if late:
        qs = qs.filter(late=True)
    if q:
        q = q.strip()
        qs = qs.filter(Q(protocol__icontains=q) | Q(authorization__number__icontains=q)
                       | Q(authorization__holder__name__icontains=q) | Q(authorization__vehicle__plate__icontains=q.upper()))
    return qs.order_by("filed_at", "id") if status == RequestStatus.FILED else qs.order_by("-filed_at", "-id")


def queue_counts() -> dict[str, int]:
    rows = LifecycleRequest.objects.values("status").annotate(n=Count("id"))
    return {r["status"]: r["n"] for r in rows}


def holder_overview(authorization: Authorization) -> dict:
    """Everything the holder's page shows about one grant (a fixed number of queries)."""
    alvaras = list(authorization.alvaras.select_related("person", "vehicle", "supersedes").order_by("-issued_at", "-id"))
    auxiliaries = list(AuxiliaryDriver.objects.filter(authorization=authorization).select_related("person")
                       .order_by("status", "added_on", "id"))
    assignment = (StandAssignment.objects.filter(authorization=authorization,
                                                 status__in=[AssignmentStatus.ACTIVE, AssignmentStatus.WAITING])
                  .select_related("stand").first())
    requests = list(LifecycleRequest.objects.filter(authorization=authorization).order_by("-filed_at", "-id"))
    pack = regulation.current()
    today = pack.today()
    for aux in auxiliaries:
        aux.authorization = authorization
        aux.reregistration = (auxiliary_reregistration_state(aux, pack, today, requests)
                              if aux.status == AuxiliaryStatus.ACTIVE else None)
    return {
        "authorization": authorization,
        "chain": act_chain(authorization),
        "compliance": compliance_state(authorization, pack, today, requests),
        "alvaras": alvaras,
        "auxiliaries": auxiliaries,
        "active_auxiliaries": [a for a in auxiliaries if a.status == AuxiliaryStatus.ACTIVE],
        "assignment": assignment,
        "fees": list(Fee.objects.filter(Q(authorization=authorization)
                                        | Q(authorization__isnull=True, holder_id=authorization.holder_id))
                     .order_by("-issued_at", "-id")),
        "requests": requests,
        "leaves": list(LeaveOfAbsence.objects.filter(authorization=authorization).order_by("-starts_on")),
        "prepostos": list(Preposto.objects.filter(authorization=authorization).select_related("person")),
    }


# --- yearly obligations -------------------------------------------------------------------
def auxiliary_reregistration_state(aux: AuxiliaryDriver, pack, today, requests: list[LifecycleRequest]) -> dict | None:
    """The auxiliary's yearly re-registration where the law requires it: deadline, overdue
    ("recadastramento vencido"), reminder window, a request in analysis. No queries: the
    grant's requests are passed in."""
    param = pack.param("auxiliary.yearly_reregistration", aux.authorization.modality)
    if param is None or not param.value:
        return None
    due = yearly_due(due_on=auxiliary_reregistration_due(aux.registered_on or aux.added_on), today=today)
    pending = any(r.kind == RequestKind.AUXILIARY_REREGISTRATION and r.status == RequestStatus.FILED
                  and int(r.data.get("auxiliary") or 0) == aux.pk for r in requests)
    overdue = due.overdue and not pending
    return {"due_on": due.due_on, "days_left": due.days_left, "overdue": overdue, "remind": due.remind,
            "pending": pending, "label": "recadastramento vencido" if overdue else "", "legal_basis": param.legal_basis}


def compliance_state(authorization: Authorization, pack, today, requests: list[LifecycleRequest]) -> dict | None:
    """The permission's next yearly proof of requirements where the law requires it."""
    param = pack.param("grant.yearly_compliance_proof", authorization.modality)
    if param is None or not param.value or authorization.status not in CURRENT_STATUSES:
        return None
    proven = {int(r.data.get("year") or 0) for r in requests
              if r.kind == RequestKind.COMPLIANCE_PROOF and r.status in (RequestStatus.FILED, RequestStatus.APPROVED)}
    nxt = compliance_next_due(valid_from=authorization.valid_from, valid_until=authorization.valid_until,
                              proven_years=proven)
    if nxt is None:
        return None
    due = yearly_due(due_on=nxt[1], today=today)
    return {"year": nxt[0], "due_on": due.due_on, "days_left": due.days_left, "overdue": due.overdue,
            "remind": due.remind, "label": "comprovação anual vencida" if due.overdue else "",
            "legal_basis": param.legal_basis}


def auxiliary_reregistration_for(authorization: Authorization | None, cpf: str, today) -> dict | None:
    """For the plate status: the re-registration state of the auxiliary with this CPF."""
    if authorization is None or not cpf:
        return None
    aux = (AuxiliaryDriver.objects.filter(authorization=authorization, person__cpf=cpf, status=AuxiliaryStatus.ACTIVE)
           .select_related("authorization").first())
    if aux is None:
        return None
    pack = regulation.current()
    requests = list(LifecycleRequest.objects.filter(authorization=authorization,
                                                    kind=RequestKind.AUXILIARY_REREGISTRATION, status=RequestStatus.FILED))
    state = auxiliary_reregistration_state(aux, pack, today, requests)
    if state is None:
        return {"required": False, "due_on": None, "overdue": False, "label": ""}
    return {"required": True, "due_on": state["due_on"], "overdue": state["overdue"], "pending": state["pending"],
            "label": state["label"], "legal_basis": state["legal_basis"]}


def registered_driver_role(authorization: Authorization | None, cpf: str, today) -> str | None:
    """For the plate status: whether the person is registered to drive this grant's vehicle —
    an active auxiliary driver, or the preposto in office on ``today`` (the holder is the
    caller's own check)."""
    if authorization is None or not cpf:
        return None
    if AuxiliaryDriver.objects.filter(authorization=authorization, person__cpf=cpf,
                                      status=AuxiliaryStatus.ACTIVE).exists():
        return "condutor auxiliar"
    if Preposto.objects.filter(Q(ended_on__isnull=True) | Q(ended_on__gt=today), authorization=authorization,
                               person__cpf=cpf, starts_on__lte=today).exists():
        return "preposto"
    return None


def registered_drivers(authorization: Authorization, today) -> list[tuple[str, object]]:
    """The people registered to drive this grant's vehicle besides the holder, in the order the
    road check lists them: the active auxiliary drivers, then the preposto in office on ``today``."""
    auxiliaries = AuxiliaryDriver.objects.filter(authorization=authorization, status=AuxiliaryStatus.ACTIVE) \
        .select_related("person").order_by("added_on", "id")
    prepostos = Preposto.objects.filter(Q(ended_on__isnull=True) | Q(ended_on__gt=today), authorization=authorization,
                                        starts_on__lte=today).select_related("person")
    return [("condutor auxiliar", a.person) for a in auxiliaries] + [("preposto", p.person) for p in prepostos]


def yearly_overdue_open(limit: int = 50) -> list[YearlyNotice]:
    """Overdue yearly obligations not yet regularised (the clerk's queue shows them)."""
    return list(
        YearlyNotice.objects.filter(stage=YearlyNoticeStage.OVERDUE, resolved_at__isnull=True,
                                    authorization__status__in=CURRENT_STATUSES)
        .exclude(auxiliary__status=AuxiliaryStatus.REMOVED)
        .select_related("authorization__holder", "auxiliary__person").order_by("due_on", "id")[:limit]
    )


def amendment_preview(req: LifecycleRequest) -> dict:
    """What the act of amendment issued by granting ``req`` will say (confirmed by the clerk)."""
    from licensing.grants.services import amendment_act

    pack = regulation.current()
    auth = req.authorization
    name, basis = amendment_act(pack)
    return {"act_name": name, "legal_basis": "; ".join(b for b in (basis, req.legal_basis) if b),
            "amends": auth, "holder": auth.holder.display_name, "vehicle": auth.vehicle,
            "modality": pack.modality_label(auth.modality), "valid_until": auth.valid_until,
            "kind": req.get_kind_display()}


def has_active_auxiliaries(grant: str = "pk"):
    """An Exists() of the outer row's grant's active auxiliary drivers (for a values() row):
    ``grant`` names the grant's id in the outer row (an alvará's: "authorization_id")."""
    from django.db.models import Exists, OuterRef

    return Exists(AuxiliaryDriver.objects.filter(authorization=OuterRef(grant), status=AuxiliaryStatus.ACTIVE))


def active_auxiliary_names(authorization_id: int) -> list[tuple[str, str, str]]:
    """(name, first_name, last_name) of the grant's active auxiliary drivers, in the order added."""
    return list(AuxiliaryDriver.objects.filter(authorization_id=authorization_id, status=AuxiliaryStatus.ACTIVE)
                .order_by("id").values_list("person__name", "person__first_name", "person__last_name"))
