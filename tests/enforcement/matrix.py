"""Permission matrix of enforcement: every URL × agent, clerk, julgador, holder (requerente),
another holder (outsider), anonymous, admin."""

from __future__ import annotations

from tests.matrix import LOGIN, Row, everyone, only

STAFF = ("atendente", "agente", "julgador", "admin")
HOLDER_VIEW = {"anonymous": LOGIN, "requerente": 200, "outsider": 404, "*": 200}
HOLDER_ONLY_FORM = {"anonymous": LOGIN, "requerente": 200, "outsider": 404, "*": 403}
API_AUTH = {"anonymous": 401}


def _pk(key):
    return lambda w: {"pk": w[key].pk}


def _auto_form(w):
    return {"plate": w["plate"], "infraction_code": "19-I", "occurred_at": w["now_local"], "location": "Rua A",
            "description": "Constatado.", "idempotency_key": "matrix-html"}


def _auto_api(w):
    return {"plate": w["plate"], "infraction_code": "19-I", "occurred_at": w["now_iso"], "location": "Rua A",
            "description": "Constatado."}


ROWS = [
    # HTML
    Row("enforcement:lookup", only(("agente", "atendente", "admin")), query="?plate=ABC1D23"),
    Row("enforcement:driver-photo", only(("agente",)), kwargs=lambda w: {"doc_id": w["driver_photo"].pk},
        notes="the road check's photograph of a driver: agents only, never public"),
    Row("enforcement:catalogue", everyone(200)),
    Row("enforcement:list", only(STAFF)),
    Row("enforcement:new", only(("agente",))),
    Row("enforcement:new", only(("agente",), ok=302), method="post", data=_auto_form),
    Row("enforcement:detail", HOLDER_VIEW, kwargs=_pk("auto")),
    Row("enforcement:notify", only(("atendente", "admin")), kwargs=_pk("auto")),
    Row("enforcement:notify", only(("atendente", "admin"), ok=302), method="post", kwargs=_pk("auto"),
        data=lambda w: {"acknowledged_on": w["today"]}),
    Row("enforcement:defense", HOLDER_ONLY_FORM, kwargs=_pk("notified")),
    Row("enforcement:defense", {**HOLDER_ONLY_FORM, "requerente": 302}, method="post", kwargs=_pk("notified"),
        data=lambda w: {"text": "Minha defesa."}),
    Row("enforcement:judge", only(("julgador",)), kwargs=_pk("judgeable")),
    Row("enforcement:judge", only(("julgador",), ok=302), method="post", kwargs=_pk("judgeable"),
        data=lambda w: {"upheld": "1", "grounds": "Comprovado."}),
    Row("enforcement:waiver", HOLDER_ONLY_FORM, kwargs=_pk("notified")),
    Row("enforcement:waiver", {**HOLDER_ONLY_FORM, "requerente": 302}, method="post", kwargs=_pk("notified"),
        data=lambda w: {"text": "Renuncio ao prazo de defesa."}),
    Row("enforcement:defense-paper", only(("atendente", "admin")), kwargs=_pk("notified")),
    Row("enforcement:defense-paper", only(("atendente", "admin"), ok=302), method="post", kwargs=_pk("notified"),
        data=lambda w: {"channel": "counter", "received_on": w["today"], "text": "Defesa entregue no balcão."}),
    Row("enforcement:waiver-paper", only(("atendente", "admin")), kwargs=_pk("notified")),
    Row("enforcement:waiver-paper", only(("atendente", "admin"), ok=302), method="post", kwargs=_pk("notified"),
        data=lambda w: {"channel": "post", "received_on": w["today"], "text": "Termo de renúncia pelo correio."}),
    Row("enforcement:decision-notice", only(("atendente", "admin")), kwargs=_pk("upheld")),
    Row("enforcement:decision-notice", only(("atendente", "admin"), ok=302), method="post", kwargs=_pk("upheld"),
        data=lambda w: {"acknowledged_on": w["today"]}),
    Row("enforcement:appeal-paper", only(("atendente", "admin")), kwargs=_pk("upheld")),
    Row("enforcement:appeal-paper", only(("atendente", "admin"), ok=302), method="post", kwargs=_pk("upheld"),
        data=lambda w: {"channel": "counter", "received_on": w["today"], "text": "Recurso no balcão."}),
    Row("enforcement:review-hearing", only(("atendente", "admin")), kwargs=_pk("review")),
    Row("enforcement:review-hearing", only(("atendente", "admin"), ok=302), method="post", kwargs=_pk("review"),
        data=lambda w: {"acknowledged_on": w["today"]}),
    Row("enforcement:review-allegations", HOLDER_ONLY_FORM, kwargs=_pk("heard")),
    Row("enforcement:review-allegations", {**HOLDER_ONLY_FORM, "requerente": 302}, method="post",
        kwargs=_pk("heard"), data=lambda w: {"text": "Minhas alegações."}),
    Row("enforcement:regulations", only(("admin",))),
    Row("enforcement:regulations", only(("admin",), ok=302), method="post",
        data=lambda w: {"key": "fine:19-III", "act_number": "Decreto nº 9/2026", "act_date": w["today"],
                        "value": "120.00"}),
    Row("enforcement:appeal", HOLDER_ONLY_FORM, kwargs=_pk("upheld")),
    Row("enforcement:appeal", {**HOLDER_ONLY_FORM, "requerente": 302}, method="post", kwargs=_pk("upheld"),
        data=lambda w: {"text": "Recorro."}),
    Row("enforcement:appeal-judge", only(("julgador",)), kwargs=_pk("appealed")),
    Row("enforcement:appeal-judge", only(("julgador",), ok=302), method="post", kwargs=_pk("appealed"),
        data=lambda w: {"granted": "0", "grounds": "Mantida."}),
    Row("enforcement:suspensive-effect", only(("julgador",)), kwargs=_pk("appealed")),
    Row("enforcement:suspensive-effect", only(("julgador",), ok=302), method="post", kwargs=_pk("appealed"),
        data=lambda w: {"grounds": "Risco de dano de difícil reparação."}),
    Row("enforcement:cancel", only(("julgador",)), kwargs=_pk("auto")),
    Row("enforcement:cancel", only(("julgador",), ok=302), method="post", kwargs=_pk("auto"),
        data=lambda w: {"reason": "Erro de digitação da placa."}),
    Row("enforcement:fine-paid", only(("atendente", "admin")), kwargs=_pk("final")),
    Row("enforcement:fine-paid", only(("atendente", "admin"), ok=302), method="post", kwargs=_pk("final"),
        data=lambda w: {"paid_on": w["today"]}),
    Row("enforcement:regularisation", only(("atendente", "admin")), kwargs=_pk("regular")),
    Row("enforcement:regularisation", only(("atendente", "admin"), ok=302), method="post", kwargs=_pk("regular"),
        data=lambda w: {"inspected_on": w["today"]}),
    Row("enforcement:file", HOLDER_VIEW, kwargs=lambda w: {"pk": w["auto"].pk, "kind": "photo", "file_pk": w["photo"].pk}),
    Row("enforcement:pdf", HOLDER_VIEW, kwargs=lambda w: {"pk": w["final"].pk, "doc": "dam"}),
    Row("enforcement:queue", only(("julgador",))),
    Row("enforcement:notice-queue", only(("atendente", "admin"))),
    # the old "Diário Oficial" page redirects to the one publication desk (which checks the role)
    Row("enforcement:publication", everyone(302)),
    Row("enforcement:mine", only(("requerente", "outsider"))),
    # API
    Row("api-infractions", {**API_AUTH, "*": 200}, api=True),
    Row("api-infractions", {**API_AUTH, "agente": 201, "*": 403}, method="post", api=True, data=_auto_api),
    Row("api-infraction-catalogue", everyone(200), api=True),
    Row("api-infraction", {**API_AUTH, "requerente": 200, "outsider": 404, "*": 200}, api=True, kwargs=_pk("auto")),
    Row("api-infraction-notify", {**API_AUTH, "atendente": 200, "admin": 200, "*": 403}, method="post", api=True,
        kwargs=_pk("auto"), data=lambda w: {"acknowledged_on": w["today"]}),
    Row("api-infraction-defense", {**API_AUTH, "requerente": 201, "outsider": 404, "*": 403}, method="post", api=True,
        kwargs=_pk("notified"), data=lambda w: {"text": "Defesa."}),
    Row("api-infraction-judge", {**API_AUTH, "julgador": 200, "*": 403}, method="post", api=True,
        kwargs=_pk("judgeable"), data=lambda w: {"upheld": True, "grounds": "Comprovado."}),
    Row("api-infraction-appeal", {**API_AUTH, "requerente": 201, "outsider": 404, "*": 403}, method="post", api=True,
        kwargs=_pk("upheld"), data=lambda w: {"text": "Recorro."}),
    Row("api-infraction-defense-waiver", {**API_AUTH, "requerente": 201, "outsider": 404, "*": 403}, method="post",
        api=True, kwargs=_pk("notified"), data=lambda w: {"text": "Renuncio."}),
    Row("api-infraction-defense-paper", {**API_AUTH, "atendente": 201, "admin": 201, "*": 403}, method="post",
        api=True, kwargs=_pk("notified"), data=lambda w: {"text": "Defesa em papel.", "received_on": w["today"]}),
    Row("api-infraction-defense-waiver-paper", {**API_AUTH, "atendente": 201, "admin": 201, "*": 403},
        method="post", api=True, kwargs=_pk("notified"),
        data=lambda w: {"text": "Renúncia em papel.", "received_on": w["today"], "channel": "post"}),
    Row("api-infraction-decision-notice", {**API_AUTH, "atendente": 200, "admin": 200, "*": 403}, method="post",
        api=True, kwargs=_pk("upheld"), data=lambda w: {"acknowledged_on": w["today"]}),
    Row("api-infraction-appeal-paper", {**API_AUTH, "atendente": 201, "admin": 201, "*": 403}, method="post",
        api=True, kwargs=_pk("upheld"), data=lambda w: {"text": "Recurso em papel.", "received_on": w["today"]}),
    Row("api-infraction-review-hearing", {**API_AUTH, "atendente": 200, "admin": 200, "*": 403}, method="post",
        api=True, kwargs=_pk("review"), data=lambda w: {"acknowledged_on": w["today"]}),
    Row("api-infraction-review-allegations", {**API_AUTH, "requerente": 201, "outsider": 404, "*": 403},
        method="post", api=True, kwargs=_pk("heard"), data=lambda w: {"text": "Minhas alegações."}),
    Row("api-regulations", {**API_AUTH, "admin": 200, "*": 403}, api=True),
    Row("api-regulations", {**API_AUTH, "admin": 201, "*": 403}, method="post", api=True,
        data=lambda w: {"key": "fine:19-III", "number": "Decreto nº 9/2026", "date": w["today"], "value": "120.00"}),
    Row("api-infraction-appeal-judge", {**API_AUTH, "julgador": 200, "*": 403}, method="post", api=True,
        kwargs=_pk("appealed"), data=lambda w: {"granted": False, "grounds": "Mantida."}),
    Row("api-infraction-suspensive-effect", {**API_AUTH, "julgador": 200, "*": 403}, method="post", api=True,
        kwargs=_pk("appealed"), data=lambda w: {"grounds": "Risco de dano de difícil reparação."}),
    Row("api-infraction-cancel", {**API_AUTH, "julgador": 200, "*": 403}, method="post", api=True,
        kwargs=_pk("auto"), data=lambda w: {"reason": "Erro."}),
    Row("api-infraction-fine-pay", {**API_AUTH, "atendente": 200, "admin": 200, "*": 403}, method="post", api=True,
        kwargs=_pk("final"), data=lambda w: {"paid_on": w["today"]}),
    Row("api-infraction-regularisation", {**API_AUTH, "atendente": 200, "admin": 200, "*": 403}, method="post",
        api=True, kwargs=_pk("regular"), data=lambda w: {"inspected_on": w["today"]}),
    Row("api-infraction-pdf", {**API_AUTH, "requerente": 200, "outsider": 404, "*": 200}, api=True,
        kwargs=lambda w: {"pk": w["final"].pk, "doc": "decision"}),
    Row("api-vehicle-status", {**API_AUTH, "agente": 200, "atendente": 200, "admin": 200, "*": 403}, api=True,
        kwargs=lambda w: {"plate": w["plate"]}),
]


def build(world, personas):
    from datetime import timedelta

    from django.core.files.base import ContentFile
    from django.utils import timezone

    from enforcement import services
    from enforcement.models import ProofPhoto
    from portal import regulation
    from tests.factories import VehicleFactory, issue_authorization

    pack = regulation.current()
    holder, agent, clerk, judge = (personas[k] for k in ("requerente", "agente", "atendente", "julgador"))
    auth, _ = issue_authorization(holder=holder, vehicle=VehicleFactory(owner=holder),
                                  valid_from=pack.today() - timedelta(days=100))
    today = pack.today()
    when = timezone.now() - timedelta(days=2)
    world.update(plate=auth.vehicle.plate, today=today.isoformat(), now_iso=timezone.now().isoformat(),
                 now_local=timezone.now().astimezone(pack.tz).strftime("%Y-%m-%dT%H:%M"))

    def issue(key, code="19-I"):
        inf, _ = services.infraction_issue(actor=agent, plate=auth.vehicle.plate, infraction_code=code,
                                           occurred_at=when, location="Rua B", description="Teste.",
                                           idempotency_key=f"matrix-{key}")
        return inf

    world["driver_photo"] = _driver_photo(holder)
    world["auto"] = issue("auto")
    world["photo"] = ProofPhoto.objects.create(infraction=world["auto"], file=ContentFile(_PNG, name="f.png"),
                                               mime="image/png", uploaded_by=agent)
    from enforcement.models import Appeal
    from tests.conftest import make_user
    from tests.enforcement.helpers import regulate_all

    regulate_all()
    first_judge = make_user("julgador-1a-instancia", "julgador")  # the persona julgador decides the appeals
    for key in ("notified", "judgeable", "upheld", "appealed", "final", "review", "heard"):
        inf = issue(key)
        services.infraction_notify(actor=clerk, infraction=inf, acknowledged_on=today - timedelta(days=1))
        if key != "notified":
            services.defense_waive(actor=holder, infraction=inf, text="Renuncio ao prazo de defesa.")
        if key in ("upheld", "appealed", "final"):
            services.infraction_judge(actor=first_judge, infraction=inf, upheld=True, grounds="Comprovado.")
        if key in ("review", "heard"):  # a dismissal under ex officio review (PL 015/2025 art. 25, §1)
            services.infraction_judge(actor=first_judge, infraction=inf, upheld=False, grounds="Defesa acolhida.")
            Appeal.objects.create(infraction=inf, instance=1, ex_officio=True, text="Revisão de ofício.",
                                  filed_on=today)
        if key == "heard":
            services.review_hearing_open(actor=clerk, infraction=inf, acknowledged_on=today)
        if key in ("appealed", "final"):
            services.appeal_file(actor=holder, infraction=inf, text="Recurso.")
        if key == "final":
            services.appeal_judge(actor=judge, infraction=inf, granted=False, grounds="Mantida.")
        inf.refresh_from_db()
        world[key] = inf
    # suspended "até a regularização" (fine paid, waiting for the clerk to record the new vistoria)
    regular = issue("regular", "20-I")
    services.infraction_notify(actor=clerk, infraction=regular, acknowledged_on=today - timedelta(days=1))
    services.defense_waive(actor=holder, infraction=regular, text="Renuncio ao prazo de defesa.")
    services.infraction_judge(actor=first_judge, infraction=regular, upheld=True, grounds="Comprovado.")
    services.appeal_file(actor=holder, infraction=regular, text="Recurso.")
    services.appeal_judge(actor=judge, infraction=regular, granted=False, grounds="Mantida.")
    regular.refresh_from_db()
    services.fine_mark_paid(actor=clerk, fine=regular.fine, paid_on=today)
    world["regular"] = regular


def _driver_photo(holder):
    """The holder's accepted photograph, on a pack that asks for one (an item marked photo)."""
    from django.core.files.base import ContentFile

    from licensing.applications.models import Application, ApplicationDocument
    from portal import regulation
    from portal.models import Municipality

    muni = Municipality.objects.get(is_active=True)
    data = muni.pack
    data["documents"].append({"code": "foto_matriz", "label": "Fotografia", "legal_basis": "Decreto de teste, art. 1",
                              "applies_to": "both", "photo": True})
    muni.pack = data
    muni.save(update_fields=["pack"])
    regulation.invalidate()
    app = Application.objects.create(applicant=holder, modality="taxi", status="granted")
    return ApplicationDocument.objects.create(application=app, type="foto_matriz", code="foto_matriz",
                                              status="accepted", file=ContentFile(_PNG, name="foto.png"),
                                              mime="image/png", size=len(_PNG))


def _png() -> bytes:
    import io

    from PIL import Image

    buf = io.BytesIO()
    Image.new("RGB", (8, 8), (200, 30, 30)).save(buf, format="PNG")
    return buf.getvalue()


_PNG = _png()
