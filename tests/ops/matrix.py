from tests.matrix import Row, only

CLERKS = ("atendente", "admin")

ROWS = [
    Row("ops-jobs", only(CLERKS)),
    Row("ops-aged-vehicles", only(CLERKS)),
]


def build(world, personas):
    from portal.jobs import run_job

    run_job("licensing.expire_grants", lambda: 0)
