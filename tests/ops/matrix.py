from tests.matrix import Row, only

CLERKS = ("atendente", "admin")

ROWS = [
    Row("ops-jobs", only(CLERKS)),
    Row("ops-aged-vehicles", only(CLERKS)),
    Row("ops-modality-decrees", only(("admin",))),
    Row("ops-modality-decrees", only(("admin",), ok=302), method="post",
        data=lambda w: {"modality": "mototaxi", "number": "Decreto nº 78/2026",
                        "act_date": w["today"]}),
]


def build(world, personas):
    from portal.jobs import run_job

    run_job("licensing.expire_grants", lambda: 0)
