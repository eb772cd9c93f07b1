"""Who is asking, and what the request headers signal: read from trusted headers only.

The identity header is trustworthy only because Envoy strips it from client requests and sets it
from a verified credential before ext_proc runs (envoy/envoy.yaml). The body never names the user.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime

from memory_extproc.clock import now_ms
from memory_extproc.config import IdentityConfig, SignalsConfig
from memory_extproc.store.model import InvalidScopeError, validate_scope_value

_TRUE = frozenset({"true", "1", "yes", "on"})


@dataclass(frozen=True, slots=True)
class HeaderSignals:
    """What one request's headers say, read once: who asks, and the signals memory obeys."""

    user_id: str  # "" when absent
    path: str  # canonical (api/routes.request_path): routes can be excluded from memory
    project_id: str = ""
    invalid_identity: bool = False  # a header was present but unusable: treated as absent
    opted_out: bool = False
    fact_signal: bool = False
    tool_signal: bool = False
    at_ms: int | None = None  # the turn's date when the client says (replayed history)
    compress: bool | None = None  # the compression header, when it says true or false


def read_headers(
    headers: dict[str, str],
    path: str,
    identity: IdentityConfig,
    signals: SignalsConfig,
    date_header: str = "",
) -> HeaderSignals:
    user_id, bad_user = _scope(headers.get(identity.user_header, ""), "user id")
    project_id, bad_project = _scope(headers.get(identity.project_header, ""), "project id")
    return HeaderSignals(
        user_id=user_id if not bad_project else "",
        path=path,
        project_id=project_id,
        invalid_identity=bad_user or bad_project,
        opted_out=headers.get(signals.opt_out_header, "").strip().lower() in _TRUE,
        fact_signal=bool(headers.get(signals.fact_check_header, "").strip()),
        tool_signal=bool(headers.get(signals.tool_header, "").strip()),
        at_ms=_date(headers.get(date_header, "")) if date_header else None,
        compress=_said(headers.get(signals.compress_header, "")),
    )


def _said(value: str) -> bool | None:
    said = value.strip().lower()
    return True if said in _TRUE else False if said in ("false", "0", "no", "off") else None


_DAY_MS = 86_400_000


def _date(value: str) -> int | None:
    """ISO 8601 date or date-time (UTC unless it says otherwise), from 1970 to tomorrow;
    anything else: ignored. A date before 1970 made a memory no page of the API could reach
    past; one in 9999 made it the newest value for ever."""
    try:
        moment = datetime.fromisoformat(value.strip().replace("Z", "+00:00"))
    except ValueError:
        return None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    at_ms = int(moment.timestamp() * 1000)
    return at_ms if 0 <= at_ms <= now_ms() + _DAY_MS else None


def _scope(value: str, what: str) -> tuple[str, bool]:
    if not value:
        return "", False
    try:
        return validate_scope_value(value, what), False
    except InvalidScopeError:
        return "", True
