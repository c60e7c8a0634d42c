"""API v1 of enforcement (API.md "Enforcement"): thin views over services and selectors.

Additions for due process (issue #13; the paths, fields and statuses of API.md stay):
- ``POST /infractions/{id}/notify/`` also takes ``"published"`` (holder not found) and answers
  ``"defense_deadline_note"`` (how the deadline was counted).
- ``POST /infractions/{id}/judge/`` → 409 ``defense_period_running`` while the defense period runs
  (unless a defense was filed or waived); answers ``"decision_notice_pending"`` and
  ``"missing_regulation"``; ``"appeal_deadline"`` is null until the notice of the decision.
- ``POST /infractions/{id}/decision-notice/`` (clerk) ``{"acknowledged_on", "refused"?, "published"?}``
  → 200 ``{"appeal_deadline", "appeal_deadline_note", "number", "decision", "instance"}``.
- ``POST /infractions/{id}/defense/waiver/`` (holder) ``{"text"}`` → 201.
- ``POST /infractions/{id}/defense/paper/``, ``/defense/waiver/paper/``, ``/appeal/paper/`` (clerk),
  multipart or JSON ``{"text", "received_on", "channel": "counter|post"}`` + ``pages`` files → 201;
  timeliness judged by ``received_on``.
- ``POST /infractions/{id}/appeal/judge/`` (julgador, or the designated appeal authority) → 409
  ``same_judge_both_instances`` for whoever decided an earlier instance; 409 ``not_appeal_authority``
  for a julgador where the municipality designates the appeal authority (only holders of the
  "Autoridade recursal" profile in that municipality decide) and for the authority's profile where
  it designates none; 409 ``review_hearing_required`` before an ex officio review reforms a dismissal.
- ``POST /infractions/{id}/review/hearing/`` (clerk) ``{"acknowledged_on"}``,
  ``POST /infractions/{id}/review/allegations/`` (holder) ``{"text"}``.
- ``GET|POST /regulations/`` (admin) ``{"key": "fiscal_unit|fine:<code>", "number", "date", "value",
  "effective_from"?}`` → 201; GET lists the recorded ones and the ``missing``.
- ``GET /infractions/{id}/`` adds ``periods`` (start, end, legal_basis, counted, state), ``timeline``,
  ``allowed_actions`` (code, label, by, until/from, legal_basis), ``decision_notices``,
  ``defense_waiver`` and the channel of each piece.
- A penalty resting on an example value has ``"amount": null`` and ``"missing_regulation"``.
"""

from __future__ import annotations

from django.shortcuts import get_object_or_404
from django.urls import reverse
from drf_spectacular.utils import extend_schema, extend_schema_view
from rest_framework import permissions, serializers, status
from rest_framework.exceptions import PermissionDenied
from rest_framework.generics import ListAPIView
from rest_framework.response import Response
from rest_framework.views import APIView

from enforcement import api_responses as R
from enforcement import selectors, services
from enforcement.models import Fine, Infraction
from portal import regulation
from portal.api import IsClerk, IsJudge, role_permission
from portal.audit import history_for
from portal.roles import Role, has_role
from portal.schema import pdf

IsAgent = role_permission(Role.AGENT)
IsAgentOrClerk = role_permission(Role.AGENT, Role.CLERK, Role.ADMIN)
# julgadores, and the authority a municipality designates to decide appeals (the service says
# which of them decides this appeal: 409 ``not_appeal_authority`` for the other)
MayDecideAppeals = role_permission(Role.JUDGE, Role.APPEAL_AUTHORITY)


# --- serializers ---------------------------------------------------------------------
class InfractionCreateSerializer(serializers.Serializer):
    plate = serializers.CharField(label="placa", max_length=10)
    infraction_code = serializers.CharField(label="código da infração", max_length=20)
    infraction_codes = serializers.ListField(label="infrações simultâneas", child=serializers.CharField(max_length=20),
                                             required=False, default=list)
    occurred_at = serializers.DateTimeField(label="data e hora da infração")
    location = serializers.CharField(label="local", max_length=300)
    description = serializers.CharField(label="descrição", max_length=5000)
    driver_cpf = serializers.CharField(label="CPF do condutor", max_length=20, required=False, allow_blank=True, default="")
    driver_name = serializers.CharField(label="nome do condutor", max_length=200, required=False, allow_blank=True, default="")
    alvara_retained = serializers.BooleanField(label="alvará retido", required=False, allow_null=True, default=None)
    signature_refused = serializers.BooleanField(label="recusou-se a assinar", required=False, default=False)
    idempotency_key = serializers.CharField(label="chave de envio", max_length=64, required=False, allow_blank=True, default="")


class NotifySerializer(serializers.Serializer):
    acknowledged_on = serializers.DateField(label="data da ciência")
    refused = serializers.BooleanField(label="recusou-se a receber", required=False, default=False)
    published = serializers.BooleanField(label="notificado por publicação", required=False, default=False)


class PaperSerializer(serializers.Serializer):
    """A piece delivered on paper at the counter or by post, recorded by a clerk."""

    text = serializers.CharField(label="resumo / transcrição da peça", max_length=20000)
    received_on = serializers.DateField(label="data do recebimento")
    channel = serializers.ChoiceField(label="meio", choices=[("counter", "balcão"), ("post", "correio")],
                                      required=False, default="counter")


class WaiverSerializer(serializers.Serializer):
    text = serializers.CharField(label="termo de renúncia", max_length=20000)


class RegulationSerializer(serializers.Serializer):
    key = serializers.CharField(label="valor regulamentado", max_length=40)
    number = serializers.CharField(label="número do regulamento", max_length=60)
    date = serializers.DateField(label="data do regulamento")
    value = serializers.DecimalField(label="valor (R$)", max_digits=12, decimal_places=2, min_value=0)
    effective_from = serializers.DateField(label="vigente desde", required=False, allow_null=True, default=None)


class TextSerializer(serializers.Serializer):
    text = serializers.CharField(label="razões", max_length=20000)


class JudgeSerializer(serializers.Serializer):
    upheld = serializers.BooleanField(label="procedente")
    grounds = serializers.CharField(label="fundamentação", max_length=20000)


class AppealJudgeSerializer(serializers.Serializer):
    granted = serializers.BooleanField(label="provido")
    grounds = serializers.CharField(label="fundamentação", max_length=20000)


class CancelSerializer(serializers.Serializer):
    reason = serializers.CharField(label="motivo", max_length=5000)


class FinePaySerializer(serializers.Serializer):
    paid_on = serializers.DateField(label="data do pagamento")


def summary(inf: Infraction) -> dict:
    return {
        "id": inf.pk, "number": inf.number, "status": inf.status, "status_label": inf.get_status_display(),
        "plate": inf.plate, "infraction_code": inf.infraction_code, "codes": inf.codes,
        "occurred_at": inf.occurred_at, "location": inf.location,
        "holder": inf.holder.display_name if inf.holder_id else None,
        "defense_deadline": inf.defense_deadline, "appeal_deadline": inf.appeal_deadline,
        "penalty": inf.penalty, "next_step": inf.next_step,
        "defense_deadline_note": inf.defense_deadline_note, "appeal_deadline_note": inf.appeal_deadline_note,
        "decision_notice_pending": inf.decision_notice_pending,
    }


def detail(inf: Infraction) -> dict:
    notice = getattr(inf, "notice", None) if hasattr(inf, "notice") else None
    defense = getattr(inf, "defense", None) if hasattr(inf, "defense") else None
    judgement = getattr(inf, "judgement", None) if hasattr(inf, "judgement") else None
    fine = getattr(inf, "fine", None) if hasattr(inf, "fine") else None
    waiver = getattr(inf, "defense_waiver", None) if hasattr(inf, "defense_waiver") else None
    return {
        **summary(inf),
        "catalogue": inf.catalogue,
        "description": inf.description,
        "modality": inf.modality,
        "authorization": inf.authorization.number if inf.authorization_id else None,
        "driver_cpf": inf.driver_cpf, "driver_name": inf.driver_name, "driver_is_auxiliary": inf.driver_is_auxiliary,
        "agent_registration": inf.agent_registration,
        "alvara_retained": inf.alvara_retained, "signature_refused": inf.signature_refused,
        "created_at": inf.created_at, "final_on": inf.final_on, "appeal_instance": inf.appeal_instance,
        "suspension_until": inf.suspension_until, "cancel_reason": inf.cancel_reason,
        "notice": notice and {"number": notice.number, "acknowledged_on": notice.acknowledged_on, "refused": notice.refused,
                              "published": notice.published},
        "defense": defense and {"text": defense.text, "filed_at": defense.filed_at, "filed_on": defense.filed_on,
                                "channel": defense.channel,
                                "received_by": defense.received_by.display_name if defense.received_by_id else None},
        "defense_waiver": waiver and {"waived_on": waiver.waived_on, "channel": waiver.channel, "text": waiver.text},
        "decision_notices": [
            {"number": dn.number, "instance": dn.instance, "decision": dn.decision, "acknowledged_on": dn.acknowledged_on,
             "refused": dn.refused, "published": dn.published, "appeal_deadline": dn.appeal_deadline}
            for dn in inf.decision_notices.all()
        ],
        **_procedure(inf),
        "judgement": judgement and {"number": judgement.number, "upheld": judgement.upheld, "grounds": judgement.grounds,
                                    "penalty": judgement.penalty, "recidivism_refs": judgement.recidivism_refs,
                                    "decided_at": judgement.decided_at},
        "appeals": [
            {"instance": a.instance, "ex_officio": a.ex_officio, "authority": a.authority, "text": a.text,
             "filed_at": a.filed_at, "filed_on": a.filed_on, "channel": a.channel, "granted": a.granted, "grounds": a.grounds, "decided_at": a.decided_at,
             "number": a.number}
            for a in inf.appeals.all()
        ],
        "fine": fine and {"number": fine.number, "amount": str(fine.amount), "due_date": fine.due_date,
                          "paid": fine.paid, "paid_on": fine.paid_on, "fee": fine.fee_id},
        "photos": [{"id": p.pk, "url": reverse("enforcement:file", args=[inf.pk, "photo", p.pk])}
                   for p in inf.photos.all()],
        "attachments": [{"id": a.pk, "kind": a.kind, "name": a.original_name,
                         "url": reverse("enforcement:file", args=[inf.pk, "attachment", a.pk])}
                        for a in inf.attachments.all()],
        "documents": {doc: reverse("enforcement:pdf", args=[inf.pk, doc]) for doc, present in (
            ("auto", True), ("notice", notice is not None), ("decision", judgement is not None),
            ("dam", fine is not None)) if present},
        "history": [
            {"at": e.at, "action": e.action, "from": e.from_state, "to": e.to_state, "actor": e.actor_label,
             "reason": e.reason}
            for e in history_for(inf)
        ],
    }


def _procedure(inf: Infraction) -> dict:
    proc = selectors.procedure(inf)
    return {"periods": proc["periods"], "timeline": proc["timeline"], "allowed_actions": proc["actions"]}


# --- views ---------------------------------------------------------------------------
class CatalogueView(APIView):
    """GET /api/v1/infractions/catalogue/ — the law's infractions with their penalties."""

    permission_classes = [permissions.AllowAny]

    @extend_schema(responses=R.CATALOGUE)
    def get(self, request):
        pack = regulation.current()
        items = selectors.catalogue(pack, request.query_params.get("modality") or None)
        unit = pack.fiscal_unit_value()
        return Response({
            "fiscal_unit": ({"name": pack.fiscal_unit.get("name"), "value": str(unit[0]), "legal_basis": unit[1],
                             "example": unit[2]} if unit else None),
            "results": items,
        })


@extend_schema_view(get=extend_schema(responses=R.INFRACTION_SUMMARY))
class InfractionListCreateView(ListAPIView):
    """GET (staff all, holder own; paginated) and POST (agent) /api/v1/infractions/."""

    serializer_class = InfractionCreateSerializer

    def get_queryset(self):
        qs = selectors.infractions_for(self.request.user).order_by("-occurred_at", "-id")
        params = self.request.query_params
        if params.get("status"):
            qs = qs.filter(status__in=params["status"].split(","))
        if params.get("plate"):
            from portal.validators import normalize_plate

            qs = qs.filter(plate=normalize_plate(params["plate"]))
        return qs

    def list(self, request, *args, **kwargs):
        page = self.paginate_queryset(self.get_queryset())
        return self.get_paginated_response([summary(i) for i in page])

    @extend_schema(request=InfractionCreateSerializer, responses={201: R.INFRACTION_ISSUED})
    def post(self, request):
        if not has_role(request.user, Role.AGENT):
            raise PermissionDenied("Só o agente de fiscalização lavra autos de infração.")
        ser = InfractionCreateSerializer(data=request.data)
        ser.is_valid(raise_exception=True)
        d = ser.validated_data
        inf, created = services.infraction_issue(
            actor=request.user, plate=d["plate"], infraction_code=d["infraction_code"], occurred_at=d["occurred_at"],
            location=d["location"], description=d["description"], driver_cpf=d["driver_cpf"],
            driver_name=d["driver_name"], alvara_retained=d["alvara_retained"],
            signature_refused=d["signature_refused"], extra_codes=d["infraction_codes"],
            idempotency_key=d["idempotency_key"] or request.headers.get("Idempotency-Key", ""),
            photos=request.FILES.getlist("photos"),
        )
        return Response({"id": inf.pk, "number": inf.number, "status": inf.status, "replayed": not created},
                        status=status.HTTP_201_CREATED)


class InfractionDetailView(APIView):
    @extend_schema(responses=R.INFRACTION_DETAIL)
    def get(self, request, pk: int):
        return Response(detail(selectors.infraction_for(request.user, pk)))


def _own(request, pk: int) -> Infraction:
    """The auto, for its holder only (404 for whom may not see it, 403 for staff)."""
    inf = selectors.infraction_for(request.user, pk)
    if inf.holder_id != request.user.pk:
        raise PermissionDenied("Só o autuado pode apresentar esta peça.")
    return inf


class NotifyView(APIView):
    permission_classes = [IsClerk]

    @extend_schema(request=NotifySerializer, responses=R.NOTIFIED)
    def post(self, request, pk: int):
        ser = NotifySerializer(data=request.data)
        ser.is_valid(raise_exception=True)
        inf = services.infraction_notify(actor=request.user, infraction=get_object_or_404(Infraction, pk=pk),
                                         acknowledged_on=ser.validated_data["acknowledged_on"],
                                         refused=ser.validated_data["refused"],
                                         published=ser.validated_data["published"])
        return Response({"status": inf.status, "defense_deadline": inf.defense_deadline,
                         "defense_deadline_note": inf.defense_deadline_note})


class DecisionNoticeView(APIView):
    """POST /api/v1/infractions/{id}/decision-notice/ (clerk) — notice of the decision: opens the
    appeal period from its ciência (or refusal, or publication)."""

    permission_classes = [IsClerk]

    @extend_schema(request=NotifySerializer, responses=R.DECISION_NOTICE)
    def post(self, request, pk: int):
        ser = NotifySerializer(data=request.data)
        ser.is_valid(raise_exception=True)
        notice = services.decision_notice_record(
            actor=request.user, infraction=get_object_or_404(Infraction, pk=pk),
            acknowledged_on=ser.validated_data["acknowledged_on"], refused=ser.validated_data["refused"],
            published=ser.validated_data["published"])
        inf = Infraction.objects.get(pk=pk)
        return Response({"number": notice.number, "decision": notice.decision, "instance": notice.instance,
                         "appeal_deadline": notice.appeal_deadline, "appeal_deadline_note": inf.appeal_deadline_note,
                         "status": inf.status})


class DefenseWaiverView(APIView):
    """POST /api/v1/infractions/{id}/defense/waiver/ (the holder) — written waiver of the defense period."""

    @extend_schema(request=WaiverSerializer, responses={201: R.WAIVED})
    def post(self, request, pk: int):
        inf = _own(request, pk)
        ser = WaiverSerializer(data=request.data)
        ser.is_valid(raise_exception=True)
        waiver = services.defense_waive(actor=request.user, infraction=inf, text=ser.validated_data["text"])
        inf.refresh_from_db()
        return Response({"status": inf.status, "waived_on": waiver.waived_on}, status=status.HTTP_201_CREATED)


class PaperPieceView(APIView):
    """POST /api/v1/infractions/{id}/{defense|defense/waiver|appeal|review/allegations}/paper/ (clerk):
    a piece delivered at the counter or by post, with its date of receipt (which judges timeliness)
    and the scanned pages (``pages``)."""

    permission_classes = [IsClerk]
    piece = "defense"

    @extend_schema(request=PaperSerializer, responses={201: R.PAPER_PIECE})
    def post(self, request, pk: int):
        ser = PaperSerializer(data=request.data)
        ser.is_valid(raise_exception=True)
        d = ser.validated_data
        inf = get_object_or_404(Infraction, pk=pk)
        kwargs = {"actor": request.user, "infraction": inf, "text": d["text"], "on": d["received_on"],
                  "channel": d["channel"], "attachments": request.FILES.getlist("pages")}
        service = {"defense": services.defense_file, "waiver": services.defense_waive,
                   "appeal": services.appeal_file, "allegations": services.review_allegations_file}[self.piece]
        obj = service(**kwargs)
        inf.refresh_from_db()
        return Response({"id": obj.pk, "status": inf.status, "received_on": d["received_on"], "channel": d["channel"],
                         "received_by": request.user.get_full_name() or request.user.get_username()},
                        status=status.HTTP_201_CREATED)


class ReviewHearingView(APIView):
    """POST /api/v1/infractions/{id}/review/hearing/ (clerk) — the holder notified to be heard before an
    ex officio review may make the decision worse."""

    permission_classes = [IsClerk]

    @extend_schema(request=NotifySerializer, responses=R.HEARING)
    def post(self, request, pk: int):
        ser = NotifySerializer(data=request.data)
        ser.is_valid(raise_exception=True)
        inf = services.review_hearing_open(actor=request.user, infraction=get_object_or_404(Infraction, pk=pk),
                                           acknowledged_on=ser.validated_data["acknowledged_on"])
        return Response({"status": inf.status, "hearing_deadline": inf.review_hearing_deadline})


class ReviewAllegationsView(APIView):
    """POST /api/v1/infractions/{id}/review/allegations/ (the holder)."""

    @extend_schema(request=TextSerializer, responses={201: R.STATUS_ONLY})
    def post(self, request, pk: int):
        inf = _own(request, pk)
        ser = TextSerializer(data=request.data)
        ser.is_valid(raise_exception=True)
        services.review_allegations_file(actor=request.user, infraction=inf, text=ser.validated_data["text"],
                                         attachments=request.FILES.getlist("attachments"))
        return Response({"status": inf.status}, status=status.HTTP_201_CREATED)


def regulation_row(row) -> dict:
    return {"id": row.pk, "key": row.key, "number": row.act_number, "date": row.act_date,
            "effective_from": row.effective_from, "value": str(row.value),
            "recorded_by": row.recorded_by.get_username(), "recorded_at": row.recorded_at}


class RegulationListCreateView(APIView):
    """GET/POST /api/v1/regulations/ (admin) — regulations that fix the values the law leaves to them
    (fine of an infraction, fiscal unit); until recorded, the example values produce no legal effect."""

    permission_classes = [role_permission(Role.ADMIN)]

    @extend_schema(responses=R.REGULATIONS)
    def get(self, request):
        from enforcement.models import RecordedRegulation

        pack = regulation.current()
        rows = RecordedRegulation.objects.filter(municipality_id=pack.municipality_id).select_related("recorded_by")
        recorded = {r.key for r in rows}
        return Response({
            "results": [regulation_row(r) for r in rows],
            "missing": [{"key": k, "label": label, "legal_basis": basis}
                        for k, label, basis in services.regulation_keys(pack) if k not in recorded],
        })

    @extend_schema(request=RegulationSerializer, responses={201: R.REGULATION})
    def post(self, request):
        ser = RegulationSerializer(data=request.data)
        ser.is_valid(raise_exception=True)
        d = ser.validated_data
        row = services.regulation_record(actor=request.user, key=d["key"], act_number=d["number"], act_date=d["date"],
                                         value=d["value"], effective_from=d["effective_from"])
        return Response(regulation_row(row), status=status.HTTP_201_CREATED)


class DefenseView(APIView):
    @extend_schema(request=TextSerializer, responses={201: R.DEFENSE_FILED})
    def post(self, request, pk: int):
        inf = _own(request, pk)
        ser = TextSerializer(data=request.data)
        ser.is_valid(raise_exception=True)
        defense = services.defense_file(actor=request.user, infraction=inf, text=ser.validated_data["text"],
                                        attachments=request.FILES.getlist("attachments"))
        inf.refresh_from_db()
        return Response({"id": defense.pk, "status": inf.status, "filed_at": defense.filed_at},
                        status=status.HTTP_201_CREATED)


class JudgeView(APIView):
    permission_classes = [IsJudge]

    @extend_schema(request=JudgeSerializer, responses=R.JUDGED, description=(
        "Decide o auto numa chamada só (API.md): a chamada é a própria confirmação. A tela do julgador "
        "mostra antes o que uma decisão com suspensão ou cassação fará e pede confirmação; um cliente da "
        "API deve mostrar antes as penalidades do código do auto (`GET /api/v1/infractions/catalogue/`) e "
        "enviar a decisão só depois de confirmada; a resposta traz a penalidade aplicada."))
    def post(self, request, pk: int):
        ser = JudgeSerializer(data=request.data)
        ser.is_valid(raise_exception=True)
        inf = get_object_or_404(Infraction, pk=pk)
        judgement = services.infraction_judge(actor=request.user, infraction=inf, upheld=ser.validated_data["upheld"],
                                              grounds=ser.validated_data["grounds"])
        inf.refresh_from_db()
        return Response({
            "status": "upheld" if judgement.upheld else "dismissed",
            "penalty": judgement.penalty,
            "appeal_deadline": inf.appeal_deadline if judgement.upheld else None,
            "decision_notice_pending": inf.decision_notice_pending,
            "missing_regulation": (judgement.penalty or {}).get("missing_regulation"),
            "decision": judgement.number,
            "current_status": inf.status,
            "ex_officio_review": inf.appeals.filter(ex_officio=True, granted__isnull=True).exists(),
        })


class AppealView(APIView):
    @extend_schema(request=TextSerializer, responses={201: R.APPEAL_FILED})
    def post(self, request, pk: int):
        inf = _own(request, pk)
        ser = TextSerializer(data=request.data)
        ser.is_valid(raise_exception=True)
        appeal = services.appeal_file(actor=request.user, infraction=inf, text=ser.validated_data["text"],
                                      attachments=request.FILES.getlist("attachments"))
        return Response({"id": appeal.pk, "status": "appealed", "instance": appeal.instance,
                         "authority": appeal.authority}, status=status.HTTP_201_CREATED)


class AppealJudgeView(APIView):
    permission_classes = [MayDecideAppeals]

    @extend_schema(request=AppealJudgeSerializer, responses=R.APPEAL_JUDGED)
    def post(self, request, pk: int):
        ser = AppealJudgeSerializer(data=request.data)
        ser.is_valid(raise_exception=True)
        inf = get_object_or_404(Infraction, pk=pk)
        appeal = services.appeal_judge(actor=request.user, infraction=inf, granted=ser.validated_data["granted"],
                                       grounds=ser.validated_data["grounds"])
        inf.refresh_from_db()
        return Response({"granted": appeal.granted, "status": inf.status, "penalty": inf.penalty,
                         "appeal_deadline": inf.appeal_deadline if inf.status == "upheld" else None,
                         "decision_notice_pending": inf.decision_notice_pending,
                         "decision": appeal.number})


class SuspensiveEffectSerializer(serializers.Serializer):
    grounds = serializers.CharField(max_length=5000)


class SuspensiveEffectView(APIView):
    """POST /api/v1/infractions/{id}/appeal/suspensive-effect/ (julgador) — exceptionally give the
    pending appeal suspensive effect: the decision's effects on the grant are undone until it is decided."""

    permission_classes = [IsJudge]

    @extend_schema(request=SuspensiveEffectSerializer, responses=R.SUSPENSIVE)
    def post(self, request, pk: int):
        ser = SuspensiveEffectSerializer(data=request.data)
        ser.is_valid(raise_exception=True)
        inf = get_object_or_404(Infraction, pk=pk)
        services.appeal_grant_suspensive_effect(actor=request.user, infraction=inf,
                                                grounds=ser.validated_data["grounds"])
        inf.refresh_from_db()
        return Response({"status": inf.status, "suspensive_effect": True,
                         "authorization_status": inf.authorization.status if inf.authorization else None})


class CancelView(APIView):
    permission_classes = [IsJudge]

    @extend_schema(request=CancelSerializer, responses=R.CANCELLED)
    def post(self, request, pk: int):
        ser = CancelSerializer(data=request.data)
        ser.is_valid(raise_exception=True)
        inf = services.infraction_cancel(actor=request.user, infraction=get_object_or_404(Infraction, pk=pk),
                                         reason=ser.validated_data["reason"])
        return Response({"status": inf.status, "cancel_reason": inf.cancel_reason})


class FinePayView(APIView):
    permission_classes = [IsClerk]

    @extend_schema(request=FinePaySerializer, responses=R.FINE_PAID)
    def post(self, request, pk: int):
        ser = FinePaySerializer(data=request.data)
        ser.is_valid(raise_exception=True)
        fine = get_object_or_404(Fine, infraction_id=pk)
        fine = services.fine_mark_paid(actor=request.user, fine=fine, paid_on=ser.validated_data["paid_on"])
        return Response({"number": fine.number, "paid": fine.paid, "paid_on": fine.paid_on})


class RegularisationSerializer(serializers.Serializer):
    inspected_on = serializers.DateField(label="data da nova vistoria")
    note = serializers.CharField(label="observação", required=False, allow_blank=True, default="", max_length=5000)


class RegularisationView(APIView):
    """POST /api/v1/infractions/{id}/regularisation/ (clerk): ends a suspension until regularised."""

    permission_classes = [IsClerk]

    @extend_schema(request=RegularisationSerializer, responses=R.REGULARISED)
    def post(self, request, pk: int):
        ser = RegularisationSerializer(data=request.data)
        ser.is_valid(raise_exception=True)
        inf = services.regularisation_record(actor=request.user, infraction=get_object_or_404(Infraction, pk=pk),
                                             inspected_on=ser.validated_data["inspected_on"],
                                             note=ser.validated_data["note"])
        inf.authorization.refresh_from_db()
        return Response({"authorization_status": inf.authorization.status, "suspension_lifted": inf.suspension_lifted})


class VehicleStatusView(APIView):
    """GET /api/v1/vehicles/{plate}/status/ (agent, clerk)."""

    permission_classes = [IsAgentOrClerk]

    @extend_schema(responses=R.VEHICLE_STATUS)
    def get(self, request, plate: str):
        pack = regulation.current()
        return Response(selectors.vehicle_status(plate, pack.today(), request.query_params.get("driver_cpf", ""),
                                                 with_photos=has_role(request.user, Role.AGENT)))


class InfractionPdfView(APIView):
    """GET /api/v1/infractions/{id}/{auto|notice|decision|dam}.pdf — holder and staff."""

    @extend_schema(responses=pdf("O auto, a notificação, a decisão ou o DAM em PDF."))
    def get(self, request, pk, doc: str):
        from enforcement.file_views import infraction_pdf

        return infraction_pdf(request, selectors.infraction_for(request.user, int(pk)), doc)
