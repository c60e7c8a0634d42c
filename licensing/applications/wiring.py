"""Menu entries of applications, the home section (open calls), the renewal hold on expiry
and demo records for `manage.py seed_demo`."""

from __future__ import annotations

from datetime import date, timedelta

from django.core.files.base import ContentFile

DEMO_PDF = (b"%PDF-1.4\n1 0 obj<</Type/Catalog/Pages 2 0 R>>endobj\n2 0 obj<</Type/Pages/Kids[]/Count 0>>endobj\n"
            b"trailer<</Root 1 0 R>>\n%%EOF\n")


def open_calls_section(request):
    from licensing.applications.models import Call
    from portal import regulation

    pack = regulation.current(required=False)
    if pack is None:
        return None
    today = pack.today()
    calls = list(Call.objects.filter(start__lte=today, end__gte=today).order_by("modality", "end"))
    if not calls:
        return None
    return {"title": "Editais abertos", "template": "licensing/applications/home_calls.html", "context": {"calls": calls}}


def _vehicle(pack, modality: str, plate: str) -> dict:
    from validate_docbr import RENAVAM

    today = pack.today()
    moto = modality == "mototaxi"
    return {"plate": plate, "renavam": RENAVAM().generate(), "make": "Honda" if moto else "Chevrolet",
            "model": "CG 160 Cargo" if moto else "Spin LT", "color": (pack.value("vehicle.colors", modality) or ["branca"])[0],
            "manufacture_year": today.year - 1, "first_registration_date": today - timedelta(days=300),
            "doors": 0 if moto else 5, "seats": 2 if moto else 5, "engine_cc": 160 if moto else 1800}


def _driver(pack, modality: str) -> dict:
    from validate_docbr import CNH

    cats = pack.value("driver.cnh_categories", modality) or ["B"]
    return {"cnh_number": CNH().generate(), "cnh_category": cats[-1], "cnh_first_issued": date(2010, 3, 15),
            "cnh_ear": True}


def _bid(pack, modality):
    from decimal import Decimal

    return Decimal("1500.00") if pack.value("selection.method", modality) == "bidding" else None


def _upload_all(app, actor) -> None:
    from licensing.applications.selectors import current_documents, required_documents
    from licensing.applications.services import document_upload

    sent = current_documents(app)
    for item in required_documents(app):
        if item.code not in sent:
            document_upload(actor=actor, application=app, doc_type=item.code,
                            file=ContentFile(DEMO_PDF, name="documento-demo.pdf"))


def seed_demo(users: dict, stdout, *, sample_data: bool = False) -> None:
    """A draft of the demo requerente; with sample data also an open call per modality, a
    submitted application and one grant (to another demo person)."""
    from django.contrib.auth import get_user_model
    from django.contrib.auth.models import Group
    from django.utils import timezone
    from validate_docbr import CPF

    from licensing.applications import calls as applications_calls
    from licensing.applications import review as applications_review
    from licensing.applications import services
    from licensing.applications.models import Application, ApplicationStatus
    from licensing.grants.models import Authorization
    from portal import regulation
    from portal.roles import Role

    pack = regulation.current(required=False)
    if pack is None:
        stdout.write("licenciamento: sem pacote ativo, nada a semear.")
        return
    today = pack.today()
    modalities = [m for m in ("taxi", "mototaxi") if pack.has_modality(m)]
    applicant = users["requerente"]
    if not sample_data:
        if not Application.objects.filter(applicant=applicant).exists():
            # an unfinished request: drafts count for nothing until submitted (rules judged then)
            Application.objects.create(applicant=applicant, kind="new", modality=modalities[0],
                                       wizard_step="vehicle", bid_amount=_bid(pack, modalities[0]))
        stdout.write("licenciamento: rascunho de demonstração pronto.")
        return
    for m in modalities:
        applications_calls.call_open(actor=users.get("atendente"), modality=m, start=today.replace(day=1),
                           end=today.replace(day=1) + timedelta(days=90), title=f"Edital de demonstração — {pack.modality_label(m)}")
    applicant, clerk, agent = users["requerente"], users["atendente"], users["agente"]
    if applicant.birth_date is None:
        applicant.birth_date = date(1982, 5, 10)
        applicant.save(update_fields=["birth_date"])
    main = modalities[0]
    submitted = Application.objects.filter(applicant=applicant, protocol__isnull=False).first()
    if submitted is None:
        app = services.application_create(actor=applicant, applicant=applicant, kind="new", modality=main,
                                          vehicle=_vehicle(pack, main, "DEM1A23"), driver=_driver(pack, main),
                                          bid_amount=_bid(pack, main), extra={"schooling": 4, "dependents": 2})
        _upload_all(app, applicant)
        services.application_submit(actor=applicant, application=app)
    if not Application.objects.filter(applicant=applicant, status=ApplicationStatus.DRAFT).exists():
        # a second, unfinished request (the one-grant rule is judged again when it is submitted)
        other = modalities[-1]
        Application.objects.create(applicant=applicant, kind="new", modality=other, wizard_step="vehicle",
                                   bid_amount=_bid(pack, other))
    User = get_user_model()
    holder = User.objects.filter(username="autorizatario-demo").first()
    if holder is None:
        holder = User.objects.create_user(username="autorizatario-demo", cpf=CPF().generate(),
                                          name="João Autorizatário Demonstração", email="autorizatario@demo.prefeitura.example",
                                          birth_date=date(1975, 8, 20))
        holder.set_unusable_password()
        holder.save()
        holder.groups.add(Group.objects.get(name=Role.APPLICANT))
    if not Authorization.objects.filter(holder=holder).exists():
        app = services.application_create(actor=holder, applicant=holder, kind="new", modality=main,
                                          vehicle=_vehicle(pack, main, "DEM2B34"), driver=_driver(pack, main),
                                          bid_amount=_bid(pack, main))
        _upload_all(app, holder)
        services.application_submit(actor=holder, application=app)
        for doc in app.documents.filter(superseded_by__isnull=True):
            applications_review.document_review(actor=clerk, document=doc, accepted=True)
        inspection = applications_review.inspection_schedule(actor=clerk, application=app, scheduled_for=timezone.now(),
                                                  agent=agent)
        items = pack.inspection_items(main)
        applications_review.inspection_record(actor=agent, inspection=inspection, approved=True,
                                   checklist={i["code"]: True for i in items}, notes="Veículo em ordem.")
        authorization, _ = services.application_approve(actor=clerk, application=app)
        stdout.write(f"licenciamento: {authorization} emitida para {holder.display_name}.")
    stdout.write("licenciamento: editais, requerimentos e outorga de demonstração prontos.")


def connect() -> None:
    from licensing.applications.selectors import renewals_filed_in_time
    from licensing.grants.jobs import register_renewal_hold
    from portal.hooks import register_demo_seed, register_home_section
    from portal.menu import MenuItem, register
    from portal.roles import Role

    register(
        MenuItem("Meus requerimentos", "licensing-my-applications", (Role.APPLICANT,), 20),
        MenuItem("Meu perfil", "licensing-profile", (Role.APPLICANT,), 25),
        MenuItem("Requerimentos", "licensing-queue", (Role.CLERK, Role.ADMIN), 20, group="Atendimento"),
        MenuItem("Editais", "licensing-calls", (Role.CLERK, Role.ADMIN), 22, group="Atendimento"),
        MenuItem("Publicações no Diário Oficial", "licensing-publications", (Role.CLERK, Role.ADMIN, Role.JUDGE), 23,
                 group="Atendimento"),
        MenuItem("Classificação", "licensing-ranking", (Role.CLERK, Role.ADMIN), 24, group="Atendimento"),
        MenuItem("Vistorias", "licensing-agent-inspections", (Role.AGENT,), 20),
    )
    register_home_section(open_calls_section)
    register_demo_seed(seed_demo)
    register_renewal_hold(renewals_filed_in_time)  # a renewal filed in time keeps the grant valid
