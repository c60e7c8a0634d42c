"""The base of the transit API views, throttles and input parsing."""


from __future__ import annotations

from rest_framework.exceptions import NotFound
from rest_framework.throttling import AnonRateThrottle
from rest_framework.views import APIView

from licensing.transit import selectors as sel
from portal.api import role_permission
from portal.roles import Role

TransitStaff = role_permission(Role.CLERK, Role.JUDGE, Role.ADMIN)
TransitClerk = role_permission(Role.CLERK, Role.ADMIN)
TransitJudge = role_permission(Role.JUDGE, Role.ADMIN)



class TransitAPIView(APIView):
    """Base: the whole module answers 404 when the active pack has no collective transport."""

    may_be_absent = True  # the schema declares that 404 on every operation (portal.schema)

    def initial(self, request, *args, **kwargs):
        if not sel.transit_enabled():
            raise NotFound("Transporte coletivo não disponível neste município.")
        super().initial(request, *args, **kwargs)


class ComplaintThrottle(AnonRateThrottle):
    scope = "transit_complaint"
    rate = "30/hour"


def _valid(serializer_class, request) -> dict:
    s = serializer_class(data=request.data)
    s.is_valid(raise_exception=True)
    return s.validated_data
