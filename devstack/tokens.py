"""Development identity: an RSA key, its JWKS for Envoy's jwt_authn, and tokens for any user."""

from __future__ import annotations

import json
import time
from pathlib import Path

import jwt
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa

ISSUER = "memory-extproc-dev"
AUDIENCE = "memory-extproc"
KEY_ID = "dev"


class DevIdentity:
    """Keys live in ``folder`` (created on first use, never committed)."""

    def __init__(self, folder: Path) -> None:
        folder.mkdir(parents=True, exist_ok=True)
        self.key_path = folder / "jwt-private.pem"
        self.jwks_path = folder / "jwks.json"
        if not self.key_path.exists():
            key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
            self.key_path.write_bytes(
                key.private_bytes(
                    serialization.Encoding.PEM,
                    serialization.PrivateFormat.PKCS8,
                    serialization.NoEncryption(),
                )
            )
            self.key_path.chmod(0o600)
        self._key = serialization.load_pem_private_key(self.key_path.read_bytes(), password=None)
        public_jwk = json.loads(jwt.algorithms.RSAAlgorithm.to_jwk(self._key.public_key()))  # type: ignore[arg-type]
        public_jwk.update({"kid": KEY_ID, "alg": "RS256", "use": "sig"})
        self.jwks_path.write_text(json.dumps({"keys": [public_jwk]}))

    def token(self, user: str, project: str = "", ttl_s: int | None = 7 * 24 * 3600) -> str:
        """``ttl_s`` None: a token without ``exp``, which our Envoy configs refuse."""
        now = int(time.time())
        claims: dict[str, object] = {"iss": ISSUER, "aud": AUDIENCE, "sub": user, "iat": now}
        if ttl_s is not None:
            claims["exp"] = now + ttl_s
        if project:
            claims["project"] = project
        return jwt.encode(claims, self._key, algorithm="RS256", headers={"kid": KEY_ID})  # type: ignore[arg-type]
