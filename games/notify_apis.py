"""The notification routes of docs/api.md ("Notifications"): the server's VAPID key, the
caller's Web Push subscriptions and webhooks (games.services.notify). What the served schema
says of each is in games/schema.py."""

from __future__ import annotations

import base64
import binascii
from typing import Any

from cryptography.hazmat.primitives.asymmetric import ec
from django.utils.translation import gettext as _
from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.throttling import BaseThrottle
from rest_framework.views import APIView

from pisyedili_api.caching import no_store
from pisyedili_api.openapi import error_responses
from pisyedili_api.serializers import StrictSerializer, body_fields_check
from players.auth import AuthenticatedRequest

from . import schema
from .models import PushSubscription, Webhook
from .services import (
    push_enabled,
    push_subscribe,
    push_unsubscribe,
    vapid_public_key,
    webhook_create,
    webhook_delete,
)


class _WritesThrottled(APIView):
    """Throttled per user on its POSTs only (THROTTLE_NOTIFY): reading one's own list is not."""

    throttle_scope = "notify"

    def get_throttles(self) -> list[BaseThrottle]:
        return super().get_throttles() if self.request.method == "POST" else []


def _b64url(value: str) -> bytes:
    """base64url, padded or not (a browser's PushSubscription keys come unpadded)."""
    if not value or any(c in value for c in "+/ \t\r\n"):
        raise ValueError(value)
    try:
        return base64.urlsafe_b64decode(value + "=" * (-len(value) % 4))
    except (binascii.Error, ValueError):
        raise ValueError(value) from None


class VapidKeyApi(APIView):
    """`GET /push/vapid-public-key`: the key a browser subscribes with."""

    permission_classes = [AllowAny]

    class OutputSerializer(serializers.Serializer):
        class Meta:
            ref_name = "VapidKey"

        enabled = serializers.BooleanField(help_text="Whether this server sends Web Push.")
        public_key = serializers.CharField(
            allow_null=True,
            help_text="The VAPID public key, base64url of the uncompressed P-256 point: the"
            " `applicationServerKey` of `pushManager.subscribe`. Null while push is off.",
        )

    @schema.push_vapid_key
    @extend_schema(responses={200: OutputSerializer, **error_responses("not_authenticated")})
    def get(self, request: Request) -> Response:
        return Response({"enabled": push_enabled(), "public_key": vapid_public_key()})


class PushSubscriptionOutputSerializer(serializers.Serializer):
    class Meta:
        ref_name = "PushSubscription"

    id = serializers.UUIDField(help_text="Remove it with POST …/{id}/delete.")
    endpoint = serializers.CharField(help_text="The push service's URL for this browser.")
    created_at = serializers.DateTimeField()


class PushKeysSerializer(StrictSerializer):
    class Meta:
        ref_name = "PushSubscriptionKeys"

    p256dh = serializers.CharField(
        max_length=128,
        trim_whitespace=False,
        help_text="The browser's P-256 public key, base64url (65 bytes, uncompressed).",
    )
    auth = serializers.CharField(
        max_length=64,
        trim_whitespace=False,
        help_text="The browser's authentication secret, base64url (16 bytes).",
    )

    def validate_p256dh(self, value: str) -> str:
        # The uncompressed point of RFC 8291 (65 bytes, 0x04 first): a compressed one is a key
        # too, but the message's encryption (http_ece) takes only this form.
        try:
            raw = _b64url(value)
            if len(raw) != 65 or raw[0] != 4:
                raise ValueError(value)
            ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), raw)
        except ValueError:
            raise serializers.ValidationError(_("not a P-256 public key")) from None
        return value

    def validate_auth(self, value: str) -> str:
        try:
            if len(_b64url(value)) != 16:
                raise ValueError(value)
        except ValueError:
            raise serializers.ValidationError(_("not a 16-byte secret")) from None
        return value


class PushSubscriptionListApi(_WritesThrottled):
    """`GET /me/push-subscriptions`, `POST /me/push-subscriptions`."""

    class InputSerializer(StrictSerializer):
        class Meta:
            ref_name = "PushSubscriptionCreate"

        endpoint = serializers.CharField(
            max_length=2048,
            help_text="The push service's URL (https; never the server's own networks).",
        )
        keys = PushKeysSerializer(
            help_text="The subscription's keys, as PushSubscription.toJSON() gives them."
        )
        expirationTime = serializers.FloatField(  # noqa: N815 (the browser's own name)
            required=False,
            allow_null=True,
            min_value=0,
            help_text="As the browser gives it (milliseconds since 1970, a DOMHighResTimeStamp"
            " that may have a fraction, or null); not used.",
        )

    @schema.push_subscriptions_list
    @extend_schema(
        responses={
            200: PushSubscriptionOutputSerializer(many=True),
            **error_responses("not_authenticated"),
        }
    )
    def get(self, request: AuthenticatedRequest) -> Response:
        rows = PushSubscription.objects.filter(player=request.user.player)
        return no_store(Response(PushSubscriptionOutputSerializer(rows, many=True).data))

    @schema.push_subscriptions_create
    @extend_schema(
        request=InputSerializer,
        responses={
            201: PushSubscriptionOutputSerializer,
            200: PushSubscriptionOutputSerializer,
            **error_responses("invalid", "not_authenticated", "push_disabled", "throttled"),
        },
    )
    def post(self, request: AuthenticatedRequest) -> Response:
        body = self.InputSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        keys = body.validated_data["keys"]
        row, created = push_subscribe(
            player=request.user.player,
            token=request.auth,
            endpoint=body.validated_data["endpoint"],
            p256dh=keys["p256dh"],
            auth=keys["auth"],
        )
        answer = status.HTTP_201_CREATED if created else status.HTTP_200_OK
        return Response(PushSubscriptionOutputSerializer(row).data, status=answer)


class PushSubscriptionDeleteApi(_WritesThrottled):
    """`POST /me/push-subscriptions/{subscription_id}/delete`."""

    @schema.push_subscriptions_delete
    @extend_schema(
        request=None,
        responses={
            204: None,
            **error_responses("invalid", "not_authenticated", "not_found", "throttled"),
        },
    )
    def post(self, request: AuthenticatedRequest, subscription_id: Any) -> Response:
        body_fields_check(request.data)
        push_unsubscribe(player=request.user.player, subscription_id=subscription_id)
        return Response(status=status.HTTP_204_NO_CONTENT)


class WebhookOutputSerializer(serializers.Serializer):
    class Meta:
        ref_name = "Webhook"

    id = serializers.UUIDField(help_text="Remove it with POST …/{id}/delete.")
    url = serializers.CharField()
    active = serializers.BooleanField(
        help_text="False once WEBHOOK_MAX_FAILURES attempts in a row failed: nothing more is"
        " sent to it (register it again)."
    )
    failures = serializers.IntegerField(
        help_text="Notices dropped after all their tries since the last delivery."
    )
    created_at = serializers.DateTimeField()
    disabled_at = serializers.DateTimeField(allow_null=True)


class WebhookCreatedSerializer(WebhookOutputSerializer):
    class Meta:
        ref_name = "WebhookCreated"

    secret = serializers.CharField(
        help_text="The key of its signatures (HMAC-SHA256), shown once: in this answer only."
    )


class WebhookListApi(_WritesThrottled):
    """`GET /me/webhooks`, `POST /me/webhooks`."""

    class InputSerializer(StrictSerializer):
        class Meta:
            ref_name = "WebhookCreate"

        url = serializers.CharField(
            max_length=2048,
            help_text="Where to POST the notices: https, never the server's own networks.",
        )

    @schema.webhooks_list
    @extend_schema(
        responses={200: WebhookOutputSerializer(many=True), **error_responses("not_authenticated")}
    )
    def get(self, request: AuthenticatedRequest) -> Response:
        rows = Webhook.objects.filter(player=request.user.player)
        return no_store(Response(WebhookOutputSerializer(rows, many=True).data))

    @schema.webhooks_create
    @extend_schema(
        request=InputSerializer,
        responses={
            201: WebhookCreatedSerializer,
            **error_responses("invalid", "not_authenticated", "throttled"),
        },
    )
    def post(self, request: AuthenticatedRequest) -> Response:
        body = self.InputSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        row = webhook_create(player=request.user.player, url=body.validated_data["url"])
        return Response(WebhookCreatedSerializer(row).data, status=status.HTTP_201_CREATED)


class WebhookDeleteApi(_WritesThrottled):
    """`POST /me/webhooks/{webhook_id}/delete`."""

    @schema.webhooks_delete
    @extend_schema(
        request=None,
        responses={
            204: None,
            **error_responses("invalid", "not_authenticated", "not_found", "throttled"),
        },
    )
    def post(self, request: AuthenticatedRequest, webhook_id: Any) -> Response:
        body_fields_check(request.data)
        webhook_delete(player=request.user.player, webhook_id=webhook_id)
        return Response(status=status.HTTP_204_NO_CONTENT)
