from django.apps import AppConfig


class TariffsConfig(AppConfig):
    name = "tariffs"
    verbose_name = "Tarifas"
