"""API v1 inbox: ``GET /api/v1/notifications/`` (the caller's, paginated, unread first) and
``POST /api/v1/notifications/{id}/read/`` (404 for another person's), for the agents' and
holders' apps — the same notices as the portal's inbox page."""

from __future__ import annotations

from django.shortcuts import get_object_or_404
from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.generics import ListAPIView
from rest_framework.response import Response
from rest_framework.views import APIView

from portal import notifications
from portal.models import Notification


class NotificationSerializer(serializers.ModelSerializer):
    read = serializers.SerializerMethodField(help_text="já lida")

    class Meta:
        model = Notification
        fields = ["id", "subject", "body", "link", "created_at", "read_at", "read"]

    def get_read(self, obj) -> bool:
        return obj.read_at is not None


class NotificationListView(ListAPIView):
    """The caller's notices, unread first, then the newest."""

    serializer_class = NotificationSerializer

    def get_queryset(self):
        return notifications.inbox(self.request.user)


class NotificationReadView(APIView):
    """Mark one of the caller's notices read; another person's is a 404."""

    @extend_schema(request=None, responses={200: NotificationSerializer})
    def post(self, request, pk: int):
        note = get_object_or_404(Notification, pk=pk, recipient=request.user)
        return Response(NotificationSerializer(notifications.mark_read(note)).data)
