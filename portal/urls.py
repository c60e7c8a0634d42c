from django.conf import settings
from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.urls import include, path
from django.views.generic import TemplateView
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerSplitView

from portal import api, modality_api, notifications_api, second_factor, views
from portal import auth_views as portal_auth_views
from portal.auth_forms import BackgroundPasswordResetForm
from portal.forms import LoginForm

api_v1 = [
    path("auth/token/", api.TokenView.as_view(), name="api-token"),
    path("accounts/", api.SignupView.as_view(), name="api-signup"),
    path("me/", api.MeView.as_view(), name="api-me"),
    path("notifications/", notifications_api.NotificationListView.as_view(), name="api-notifications"),
    path("notifications/<int:pk>/read/", notifications_api.NotificationReadView.as_view(),
         name="api-notification-read"),
    path("modality-decrees/", modality_api.ModalityDecreeListCreateView.as_view(), name="api-modality-decrees"),
    path("schema/", SpectacularAPIView.as_view(), name="api-schema"),
    path("docs/", SpectacularSwaggerSplitView.as_view(url_name="api-schema"), name="api-docs"),
    # the public API first: it is what anonymous traffic asks for, resolved before every room's routes
    path("", include("portal.public.api_urls")),
    path("", include("tariffs.api_urls")),
    path("", include("licensing.api_urls")),
    path("", include("enforcement.api_urls")),
    path("", include("licensing.transit.api_urls")),
]

urlpatterns = [
    path("", views.HomeView.as_view(), name="home"),
    # public pages first (their prefixes are their own: verificar/, transparencia/, tarifas/)
    path("", include("portal.public.urls")),
    path("", include("tariffs.urls")),
    path("painel/", views.DashboardView.as_view(), name="dashboard"),
    path("conta/entrar/", auth_views.LoginView.as_view(authentication_form=LoginForm, redirect_authenticated_user=True), name="login"),
    path("conta/sair/", portal_auth_views.LogoutView.as_view(), name="logout"),
    path("conta/segundo-fator/", second_factor.SecondFactorSetupView.as_view(), name="second-factor-setup"),
    path("conta/verificacao/", second_factor.SecondFactorVerifyView.as_view(), name="second-factor-verify"),
    path("atendimento/contas/ativar/", portal_auth_views.AccountClaimAtCounterView.as_view(), name="account-claim-counter"),
    path("conta/acessos/", portal_auth_views.ApiTokensView.as_view(), name="api-tokens"),
    path("conta/acessos/<int:pk>/revogar/", portal_auth_views.ApiTokenRevokeView.as_view(), name="api-token-revoke"),
    path("conta/cadastro/", views.SignupView.as_view(), name="signup"),
    path("conta/senha/", auth_views.PasswordChangeView.as_view(), name="password_change"),
    path("conta/senha/ok/", auth_views.PasswordChangeDoneView.as_view(), name="password_change_done"),
    path("conta/recuperar/", auth_views.PasswordResetView.as_view(form_class=BackgroundPasswordResetForm), name="password_reset"),
    path("conta/recuperar/enviado/", auth_views.PasswordResetDoneView.as_view(), name="password_reset_done"),
    path("conta/recuperar/<uidb64>/<token>/", auth_views.PasswordResetConfirmView.as_view(), name="password_reset_confirm"),
    path("conta/recuperar/concluido/", auth_views.PasswordResetCompleteView.as_view(), name="password_reset_complete"),
    path("notificacoes/", views.NotificationListView.as_view(), name="notifications"),
    path("notificacoes/<int:pk>/lida/", views.notification_read, name="notification-read"),
    path("legislacao/", views.LegislationIndexView.as_view(), name="legislation"),
    path("legislacao/<slug:key>/", views.LawView.as_view(), name="law"),
    path("acessibilidade/", TemplateView.as_view(template_name="portal/accessibility.html"), name="accessibility"),
    path("privacidade/", TemplateView.as_view(template_name="portal/privacy.html"), name="privacy"),
    path("healthz/", views.healthz, name="healthz"),
    path("robots.txt", views.robots, name="robots"),
    path("favicon.ico", views.favicon, name="favicon"),
    path(settings.ADMIN_URL, admin.site.urls),
    path("api/v1/", include(api_v1)),
    path("", include("licensing.urls")),
    path("", include("enforcement.urls")),
    path("", include("portal.ops_urls")),
    path("", include("licensing.transit.urls")),
]

handler403 = "portal.errors.permission_denied"
handler404 = "portal.errors.not_found"
handler500 = "portal.errors.server_error"
