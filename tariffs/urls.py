from django.urls import path

from tariffs import views

urlpatterns = [
    path("tarifas/", views.CalculatorView.as_view(), name="tariffs-calculator"),
    path("tarifas/tabela.pdf", views.TariffTablePdfView.as_view(), name="tariffs-table-pdf"),
    path("tarifas/publicar/", views.TariffAdminView.as_view(), name="tariffs-admin"),
]
