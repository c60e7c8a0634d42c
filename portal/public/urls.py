"""Public pages. Included from portal/urls.py: path("", include("portal.public.urls"))."""

import os

from django.urls import path
from django.views.generic import RedirectView

from portal.public import views

urlpatterns = [
    path("verificar/", views.VerifySearchView.as_view(), name="public-verify"),
    # before the code: "conferir-pdf" is not a verification code
    path("verificar/conferir-pdf/", views.CheckPdfView.as_view(), name="public-verify-pdf"),
    path("verificar/<str:code>/", views.VerifyCodeView.as_view(), name="public-verify-code"),
    path("transparencia/", views.TransparencyView.as_view(), name="public-transparency"),
    path("transparencia/vagas/", views.QuotasView.as_view(), name="public-quotas"),
    # The stands list with occupancy lives with the stands themselves (licensing lifecycle).
    path("transparencia/pontos/", RedirectView.as_view(pattern_name="lifecycle-stands-public"), name="public-stands"),
    path("transparencia/estatisticas/", views.StatisticsView.as_view(), name="public-statistics"),
]

if os.environ.get("BENCH") == "1":  # bench/bench_public.py only: the bare baseline view
    from django.http import HttpResponse

    def _bare(request):
        return HttpResponse(b"ok", content_type="text/plain")

    urlpatterns.append(path("bench/bare/", _bare))
