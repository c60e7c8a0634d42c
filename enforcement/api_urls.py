from django.urls import path, re_path

from enforcement import api

urlpatterns = [
    path("infractions/", api.InfractionListCreateView.as_view(), name="api-infractions"),
    path("infractions/catalogue/", api.CatalogueView.as_view(), name="api-infraction-catalogue"),
    path("infractions/<int:pk>/", api.InfractionDetailView.as_view(), name="api-infraction"),
    path("infractions/<int:pk>/notify/", api.NotifyView.as_view(), name="api-infraction-notify"),
    path("infractions/<int:pk>/defense/", api.DefenseView.as_view(), name="api-infraction-defense"),
    path("infractions/<int:pk>/defense/waiver/", api.DefenseWaiverView.as_view(), name="api-infraction-defense-waiver"),
    path("infractions/<int:pk>/defense/paper/", api.PaperPieceView.as_view(piece="defense"),
         name="api-infraction-defense-paper"),
    path("infractions/<int:pk>/defense/waiver/paper/", api.PaperPieceView.as_view(piece="waiver"),
         name="api-infraction-defense-waiver-paper"),
    path("infractions/<int:pk>/decision-notice/", api.DecisionNoticeView.as_view(), name="api-infraction-decision-notice"),
    path("infractions/<int:pk>/appeal/paper/", api.PaperPieceView.as_view(piece="appeal"),
         name="api-infraction-appeal-paper"),
    path("infractions/<int:pk>/review/hearing/", api.ReviewHearingView.as_view(), name="api-infraction-review-hearing"),
    path("infractions/<int:pk>/review/allegations/", api.ReviewAllegationsView.as_view(),
         name="api-infraction-review-allegations"),
    path("regulations/", api.RegulationListCreateView.as_view(), name="api-regulations"),
    path("infractions/<int:pk>/judge/", api.JudgeView.as_view(), name="api-infraction-judge"),
    path("infractions/<int:pk>/appeal/", api.AppealView.as_view(), name="api-infraction-appeal"),
    path("infractions/<int:pk>/appeal/judge/", api.AppealJudgeView.as_view(), name="api-infraction-appeal-judge"),
    path("infractions/<int:pk>/appeal/suspensive-effect/", api.SuspensiveEffectView.as_view(),
         name="api-infraction-suspensive-effect"),
    path("infractions/<int:pk>/cancel/", api.CancelView.as_view(), name="api-infraction-cancel"),
    path("infractions/<int:pk>/fine/pay/", api.FinePayView.as_view(), name="api-infraction-fine-pay"),
    path("infractions/<int:pk>/regularisation/", api.RegularisationView.as_view(), name="api-infraction-regularisation"),
    re_path(r"^infractions/(?P<pk>\d+)/(?P<doc>auto|notice|decision|dam)\.pdf$", api.InfractionPdfView.as_view(),
            name="api-infraction-pdf"),
    path("vehicles/<str:plate>/status/", api.VehicleStatusView.as_view(), name="api-vehicle-status"),
]
