"""``manage.py vapid_keys``: a new VAPID key pair for Web Push, printed as environment lines.

    VAPID_PUBLIC_KEY=...   (the uncompressed P-256 point, base64url: the browsers' applicationServerKey)
    VAPID_PRIVATE_KEY=...  (its 32-byte private scalar, base64url: keep it secret)

Set both in the site's environment to turn push notices on.  A new pair makes every browser's
subscription useless (the push services refuse notices signed with another key): people turn
notices on again on their profile.
"""

from __future__ import annotations

from typing import Any

from cryptography.hazmat.primitives.asymmetric import ec
from django.core.management.base import BaseCommand

from accounts.push import b64url_encode, public_point


class Command(BaseCommand):
    help = "Make a VAPID key pair for Web Push and print it as VAPID_PUBLIC_KEY= and VAPID_PRIVATE_KEY= lines."

    def handle(self, *args: Any, **options: Any) -> None:
        key = ec.generate_private_key(ec.SECP256R1())
        private = key.private_numbers().private_value.to_bytes(32, "big")
        self.stdout.write(f"VAPID_PUBLIC_KEY={b64url_encode(public_point(key.public_key()))}")
        self.stdout.write(f"VAPID_PRIVATE_KEY={b64url_encode(private)}")
