from django.http import JsonResponse
from django.shortcuts import render


def _api(request) -> bool:
    return request.path.startswith("/api/")


def permission_denied(request, exception=None):
    if _api(request):
        return JsonResponse({"errors": {"detail": ["Sem permissão para esta ação."]}}, status=403)
    return render(request, "errors/403.html", status=403)


def not_found(request, exception=None):
    """The API answers in JSON (400/404 bodies of API.md); pages get the HTML page."""
    if _api(request):
        if request.path.startswith("/api/v1/verify/"):  # a code with a slash, an empty code
            return JsonResponse({"valid": False}, status=404)
        message = "Endereço não encontrado na API."
        return JsonResponse({"errors": {"detail": [message]}, "detail": message}, status=404)
    return render(request, "errors/404.html", status=404)


def server_error(request):
    if _api(request):
        return JsonResponse({"errors": {"detail": ["Erro interno. Tente de novo mais tarde."]}}, status=500)
    return render(request, "errors/500.html", status=500)
