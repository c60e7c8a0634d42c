from django.http import HttpResponse
from django.urls import path


def ok(request):
    return HttpResponse(b"ok", content_type="text/plain")


# the portal's lines are served under many paths; the reference answers "ok" on every one of them
urlpatterns = [path("", ok), path("<path:anything>", ok)]
