from django.apps import AppConfig


class LicensingConfig(AppConfig):
    name = "licensing"
    verbose_name = "Licenciamento"
