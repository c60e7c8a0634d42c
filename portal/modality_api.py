"""``GET|POST /api/v1/modality-decrees/`` (admin): the decrees that open a modality the law leaves
to one. ``{"modality", "number", "date", "effective_from"?, "link"?}`` → 201 with the decree;
until a decree is in force the modality's calls and applications are refused with 409."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status
from rest_framework.response import Response
from rest_framework.views import APIView

from portal import regulation
from portal.api import request_object, role_permission
from portal.modality_decrees import decree_modalities, decree_rows, modality_decree_record
from portal.roles import Role
from portal.schema import day, flag, moment, shape, text

DECREE = shape("ModalityDecreeRecorded", modality=text(), number=text(), date=day(), effective_from=day(), link=text(),
               recorded_by=text(), recorded_at=moment())
DECREES = shape("ModalityDecrees",
                results=shape("ModalityDecreeItem", many=True, modality=text(), number=text(), date=day(),
                              effective_from=day(), link=text(), recorded_by=text(), recorded_at=moment()),
                modalities=shape("ModalityDecreeState", many=True, modality=text(), label=text(),
                                 legal_basis=text(), in_force=flag(), message=text(null=True)))


class ModalityDecreeSerializer(serializers.Serializer):
    modality = serializers.CharField(label="modalidade", max_length=20)
    number = serializers.CharField(label="número do decreto", max_length=60)
    date = serializers.DateField(label="data do decreto")
    effective_from = serializers.DateField(label="vigente desde", required=False, allow_null=True, default=None)
    link = serializers.CharField(label="endereço da publicação", max_length=300, required=False, allow_blank=True,
                                 default="")


def decree_row(row) -> dict:
    return {"modality": row.modality, "number": row.number, "date": row.act_date,
            "effective_from": row.effective_from, "link": row.link,
            "recorded_by": row.recorded_by.get_username(), "recorded_at": row.recorded_at}


class ModalityDecreeListCreateView(APIView):
    permission_classes = [role_permission(Role.ADMIN)]

    @extend_schema(responses=DECREES)
    def get(self, request):
        pack = regulation.current()
        states = []
        for modality, label, basis in decree_modalities(pack):
            refusal = pack.modality_refusal(modality)
            states.append({"modality": modality, "label": label, "legal_basis": basis, "in_force": refusal is None,
                           "message": refusal.message if refusal else None})
        return Response({"results": [decree_row(r) for r in decree_rows(pack)], "modalities": states})

    @extend_schema(request=ModalityDecreeSerializer, responses={201: DECREE})
    def post(self, request):
        ser = ModalityDecreeSerializer(data=request_object(request))
        ser.is_valid(raise_exception=True)
        d = ser.validated_data
        row = modality_decree_record(actor=request.user, modality=d["modality"], number=d["number"],
                                     act_date=d["date"], effective_from=d["effective_from"], link=d["link"])
        return Response(decree_row(row), status=status.HTTP_201_CREATED)
