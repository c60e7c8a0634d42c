"""Pages of the base: home, dashboard, accounts, legislation, notices, statements."""

from __future__ import annotations

import re

from django.contrib import messages
from django.contrib.auth import login
from django.contrib.auth.mixins import LoginRequiredMixin
from django.core.exceptions import ValidationError
from django.db import connection
from django.http import Http404, HttpResponse, HttpResponseRedirect, JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.templatetags.static import static
from django.urls import reverse
from django.utils.html import escape
from django.utils.safestring import mark_safe
from django.views import View
from django.views.decorators.http import require_POST
from django.views.generic import TemplateView

from portal import registry, regulation
from portal.forms import SignupForm
from portal.models import Notification
from portal.roles import Role, has_role
from portal.services import sign_up


class RoleRequiredMixin(LoginRequiredMixin):
    """Signed-in users holding one of ``roles``; others get 403 (anonymous: login)."""

    roles: tuple[str, ...] = ()

    def dispatch(self, request, *args, **kwargs):
        if not request.user.is_authenticated:
            return self.handle_no_permission()
        if self.roles and not has_role(request.user, *self.roles):
            from django.core.exceptions import PermissionDenied

            raise PermissionDenied("Seu perfil não dá acesso a esta página.")
        return super().dispatch(request, *args, **kwargs)


class HomeView(TemplateView):
    """The home page. For anonymous visitors it is the same page for everyone (a minute's
    public cache, kept by portal.page_cache until the data change); signed-in people get
    theirs, private."""

    template_name = "portal/home.html"

    def get(self, request, *args, **kwargs):
        from portal.public.http import public_cache

        return public_cache(request, super().get(request, *args, **kwargs), 60)

    def get_context_data(self, **kwargs):
        ctx = super().get_context_data(**kwargs)
        from portal.hooks import home_sections

        ctx["sections"] = home_sections(self.request)
        return ctx


class DashboardView(LoginRequiredMixin, TemplateView):
    template_name = "portal/dashboard.html"

    def get_context_data(self, **kwargs):
        ctx = super().get_context_data(**kwargs)
        ctx["unread"] = Notification.objects.filter(recipient=self.request.user, read_at__isnull=True).count()
        # agents on the street: plate search is the first thing on the page
        ctx["plate_search"] = has_role(self.request.user, Role.AGENT)
        if has_role(self.request.user, Role.APPLICANT) and registry.has(registry.FIRST_STEPS):
            # a new applicant sees where to start instead of a bare list of links
            ctx["first_steps"] = registry.call(registry.FIRST_STEPS, self.request.user)
            if registry.has(registry.NEXT_STEPS):  # the next thing to do, before anything else
                ctx["next_steps"] = registry.call(registry.NEXT_STEPS, self.request.user)
        return ctx


class SignupView(View):
    template_name = "registration/signup.html"

    def get(self, request):
        if request.user.is_authenticated:
            return redirect("dashboard")
        return render(request, self.template_name, {"form": SignupForm()})

    def post(self, request):
        form = SignupForm(request.POST)
        if form.is_valid():
            data = form.cleaned_data
            try:
                user = sign_up(
                    cpf=data["cpf"], name=data["name"], email=data["email"], password=data["password"],
                    birth_date=data["birth_date"], phone=data.get("phone", ""),
                )
            except ValidationError as exc:
                for field, errors in exc.message_dict.items():
                    for error in errors:
                        form.add_error(field if field in form.fields else None, error)
            else:
                login(request, user, backend="portal.auth.UsernameOrCpfBackend")
                messages.success(request, "Conta criada. Bem-vindo(a) ao portal.")
                return redirect("dashboard")
        return render(request, self.template_name, {"form": form}, status=400)


class NotificationListView(LoginRequiredMixin, TemplateView):
    template_name = "portal/notifications.html"

    def get_context_data(self, **kwargs):
        from django.core.paginator import Paginator

        ctx = super().get_context_data(**kwargs)
        qs = Notification.objects.filter(recipient=self.request.user).order_by("-created_at", "-id")
        ctx["page_obj"] = Paginator(qs, 20).get_page(self.request.GET.get("page"))
        return ctx


@require_POST
def notification_read(request, pk: int):
    if not request.user.is_authenticated:
        return redirect(f"{reverse('login')}?next={request.path}")
    from portal.notifications import mark_read

    note = mark_read(get_object_or_404(Notification, pk=pk, recipient=request.user))
    if note.link and note.link.startswith("/"):
        return redirect(note.link)
    return redirect("notifications")


class LegislationIndexView(TemplateView):
    template_name = "portal/legislation_index.html"


_ART_RE = re.compile(r"^\s*Art\.?\s*(\d+)\s*[º°o]?", re.IGNORECASE)


def law_html(text: str) -> str:
    """Law text as paragraphs, each article with a linkable anchor (#art-N)."""
    out = []
    seen: set[str] = set()
    for line in text.splitlines():
        if not line.strip():
            continue
        match = _ART_RE.match(line)
        if match and match.group(1) not in seen:
            seen.add(match.group(1))
            n = match.group(1)
            out.append(
                f'<p id="art-{n}" class="law-article"><a class="law-anchor" href="#art-{n}" '
                f'aria-label="Link para o art. {n}">§</a> {escape(line)}</p>'
            )
        else:
            out.append(f"<p>{escape(line)}</p>")
    return "\n".join(out)


class LawView(TemplateView):
    template_name = "portal/law.html"

    def get_context_data(self, **kwargs):
        ctx = super().get_context_data(**kwargs)
        pack = regulation.current(required=False)
        law = pack.law(kwargs["key"]) if pack else None
        if law is None:
            raise Http404("Lei não encontrada.")
        path = (regulation.LAWS_DIR / law["file"]).resolve()
        if regulation.LAWS_DIR.resolve() not in path.parents or not path.is_file():
            raise Http404("Texto da lei indisponível.")
        ctx["law"] = law
        ctx["law_body"] = mark_safe(law_html(path.read_text(encoding="utf-8")))  # noqa: S308 - escaped above
        return ctx


def healthz(request):
    """Database (required: an error is a 500) and Redis (a cache: "down" is "degraded", still 200)."""
    from portal.cache import redis_status

    with connection.cursor() as cursor:
        cursor.execute("SELECT 1")
    redis = redis_status()
    return JsonResponse({"status": "degraded" if redis == "down" else "ok", "database": "ok", "redis": redis})


def favicon(request):
    """/favicon.ico, asked for by browsers whatever the page says: the SVG icon in static/.

    A temporary redirect: the static name carries the file's hash, which changes on deploy."""
    response = HttpResponseRedirect(static("img/favicon.svg"))
    response["Cache-Control"] = "public, max-age=86400"
    return response


def robots(request):
    return HttpResponse("User-agent: *\nDisallow: /conta/\nDisallow: /api/\n", content_type="text/plain")


