from tests.matrix import Row, only

CLERKS = ("atendente", "admin")

ROWS = [
    Row("ops-jobs", only(CLERKS)),
    Row("ops-aged-vehicles", only(CLERKS)),
    Row("ops-modality-decrees", only(("admin",))),
    Row("ops-modality-decrees", only(("admin",), ok=302), method="post",
        data=lambda w: {"modality": "mototaxi", "number": "Decreto nº 78/2026",
                        "act_date": w["today"]}),
    Row("ops-staff", only(("admin",))),
    Row("ops-staff-revoke", only(("admin",), ok=302), method="post",
        kwargs=lambda w: {"pk": w["staff_assignment"].pk}, data=lambda w: {"reason": "Fim da designação"}),
    # the consortium's pages: no persona of a municipality (tests/portal/test_consortium.py for the role)
    Row("consortium", only(())),
    Row("consortium-open-data", only(())),
]


def build(world, personas):
    from portal.jobs import run_job
    from portal.models import Municipality
    from portal.staff import grant_role
    from tests.conftest import make_user

    world["staff_assignment"] = grant_role(
        actor=None, user=make_user("servidor-matriz", None), municipality=Municipality.objects.get(
            pk=world["pack"].municipality_id), role="agente", reason="Portaria de teste")

    run_job("licensing.expire_grants", lambda: 0)
