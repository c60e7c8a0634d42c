from django.urls import path, re_path
from django.views.generic import RedirectView

from enforcement import file_views, views

app_name = "enforcement"

urlpatterns = [
    path("fiscalizacao/placa/", views.LookupView.as_view(), name="lookup"),
    path("fiscalizacao/placa/foto/<int:doc_id>/", file_views.DriverPhotoView.as_view(), name="driver-photo"),
    path("fiscalizacao/catalogo/", views.CatalogueView.as_view(), name="catalogue"),
    path("fiscalizacao/autos/", views.StaffListView.as_view(), name="list"),
    path("fiscalizacao/autos/novo/", views.InfractionCreateView.as_view(), name="new"),
    path("fiscalizacao/autos/<int:pk>/", views.DetailView.as_view(), name="detail"),
    path("fiscalizacao/autos/<int:pk>/notificar/", views.NotifyView.as_view(), name="notify"),
    path("fiscalizacao/autos/<int:pk>/defesa/", views.DefenseView.as_view(), name="defense"),
    path("fiscalizacao/autos/<int:pk>/defesa/renuncia/", views.WaiverView.as_view(), name="waiver"),
    path("fiscalizacao/autos/<int:pk>/defesa/papel/", views.PaperView.as_view(piece="defense"), name="defense-paper"),
    path("fiscalizacao/autos/<int:pk>/defesa/renuncia/papel/", views.PaperView.as_view(piece="waiver"),
         name="waiver-paper"),
    path("fiscalizacao/autos/<int:pk>/recurso/papel/", views.PaperView.as_view(piece="appeal"), name="appeal-paper"),
    path("fiscalizacao/autos/<int:pk>/decisao/notificar/", views.DecisionNoticeView.as_view(), name="decision-notice"),
    path("fiscalizacao/autos/<int:pk>/revisao/intimar/", views.ReviewHearingView.as_view(), name="review-hearing"),
    path("fiscalizacao/autos/<int:pk>/revisao/alegacoes/", views.ReviewAllegationsView.as_view(),
         name="review-allegations"),
    path("fiscalizacao/regulamentos/", views.RegulationView.as_view(), name="regulations"),
    path("fiscalizacao/autos/<int:pk>/julgar/", views.JudgeView.as_view(), name="judge"),
    path("fiscalizacao/autos/<int:pk>/recurso/", views.AppealView.as_view(), name="appeal"),
    path("fiscalizacao/autos/<int:pk>/recurso/julgar/", views.AppealJudgeView.as_view(), name="appeal-judge"),
    path("fiscalizacao/autos/<int:pk>/recurso/efeito-suspensivo/", views.SuspensiveEffectView.as_view(),
         name="suspensive-effect"),
    path("fiscalizacao/autos/<int:pk>/cancelar/", views.CancelView.as_view(), name="cancel"),
    path("fiscalizacao/autos/<int:pk>/dam/pagamento/", views.FinePaidView.as_view(), name="fine-paid"),
    path("fiscalizacao/autos/<int:pk>/regularizacao/", views.RegularisationView.as_view(), name="regularisation"),
    re_path(r"^fiscalizacao/autos/(?P<pk>\d+)/(?P<kind>photo|attachment)/(?P<file_pk>\d+)/$", file_views.FileView.as_view(),
            name="file"),
    re_path(r"^fiscalizacao/autos/(?P<pk>\d+)/pdf/(?P<doc>auto|notice|decision|dam)/$", file_views.PdfView.as_view(),
            name="pdf"),
    path("fiscalizacao/julgamento/", views.JudgeQueueView.as_view(), name="queue"),
    path("fiscalizacao/notificacoes/", views.NoticeQueueView.as_view(), name="notice-queue"),
    # the old "Diário Oficial" page: the decisions to publish are on the one publication desk now
    path("fiscalizacao/publicacao/", RedirectView.as_view(pattern_name="licensing-publications", permanent=False),
         name="publication"),
    path("meus-autos/", views.MyInfractionsView.as_view(), name="mine"),
]
