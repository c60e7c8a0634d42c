"""Reads of fees."""

from __future__ import annotations

from django.db.models import Q, QuerySet
from django.http import Http404

from licensing.fees.models import Fee, FeeKind, FeeStatus, PaymentImport
from licensing.grants.models import Authorization
from licensing.grants.selectors import is_desk


def fees_visible_to(user) -> QuerySet[Fee]:
    qs = Fee.objects.select_related("holder", "authorization", "paid_marked_by")
    if is_desk(user):
        return qs
    return qs.filter(holder=user)


def fee_for(user, pk: int) -> Fee:
    fee = fees_visible_to(user).filter(pk=pk).first()
    if fee is None:
        raise Http404("DAM não encontrado.")
    return fee


def fees_for_desk(*, status: str = "", kind: str = "", q: str = "") -> QuerySet[Fee]:
    qs = Fee.objects.select_related("holder", "authorization", "paid_marked_by")
    if status in FeeStatus.values:
        qs = qs.filter(status=status)
    if kind in FeeKind.values:
        qs = qs.filter(kind=kind)
    if q:
        qs = qs.filter(Q(number__icontains=q) | Q(holder__name__icontains=q) | Q(authorization__number__icontains=q))
    return qs.order_by("-issued_at", "-id")


def tff_outstanding(authorization: Authorization, year: int | None = None) -> Fee | None:
    """An issued and unpaid TFF of the grant (for the grant/renewal decision: not granted unpaid)."""
    qs = Fee.objects.filter(authorization=authorization, kind=FeeKind.TFF, status=FeeStatus.ISSUED)
    if year:
        qs = qs.filter(reference_year=year)
    return qs.order_by("due_date").first()


def tff_paid(authorization: Authorization, year: int) -> bool:
    return Fee.objects.filter(authorization=authorization, kind=FeeKind.TFF, reference_year=year,
                              status=FeeStatus.PAID).exists()


def payment_imports() -> QuerySet[PaymentImport]:
    return PaymentImport.objects.select_related("imported_by").order_by("-imported_at", "-id")
