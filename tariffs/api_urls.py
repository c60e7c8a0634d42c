from django.urls import path

from tariffs import api

urlpatterns = [
    path("fares/tariffs/", api.TariffsView.as_view(), name="api-fares-tariffs"),
    path("fares/quote/", api.QuoteView.as_view(), name="api-fares-quote"),
]
