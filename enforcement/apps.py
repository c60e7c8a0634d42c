from django.apps import AppConfig


class EnforcementConfig(AppConfig):
    name = "enforcement"
    verbose_name = "Fiscalização"
