"""Shapes MCP004's twin reads (tests/port_checks/rules.py), with the registry of its fixtures
beside them: how a helper's symbol is passed (starred, by keyword, after a starred one,
concatenated, bytes, an f-string), how a helper is named, and payload dicts with a key
written twice, `**` items and keys that are no plain strings."""
# ruff: noqa: B026, F403, F405, F541, F601, F821, UP025, UP034

from acme_weather.errors import *
from acme_weather.errors import forecast_error, provider_error

SYMBOLS = ["FORECAST_RANGE_TOO_LONGG"]
OPTIONS = {"symbol": "FORECAST_RANGE_TOO_LONGG"}


def calls(days: int) -> None:
    if days == 1:
        raise forecast_error(*SYMBOLS)
    if days == 2:
        raise forecast_error(*["FORECAST_RANGE_TOO_LONGG"], "FORECAST_RANGE_TOO_LONGG")
    if days == 3:
        raise forecast_error(**OPTIONS)
    if days == 4:
        raise forecast_error(maxDays=14, *SYMBOLS)
    if days == 5:
        raise forecast_error(maxDays=14, symbol="FORECAST_RANGE_TOO_LONGG")
    if days == 6:
        raise forecast_error("FORECAST_" "RANGE_TOO_LONGG")
    if days == 7:
        raise forecast_error(b"FORECAST_RANGE_TOO_LONGG")
    if days == 8:
        raise forecast_error(f"FORECAST_RANGE_TOO_LONGG")
    if days == 9:
        raise forecast_error(r'FORECAST_RANGE_TOO_LONGG')
    if days == 10:
        raise provider_error(u"FORECAST_LOCATION_UNKNOWN")
    if days == 11:
        raise auth_error("AUTH_SESSION_LOCKED")
    if days == 12:
        raise self.forecast_error("FORECAST_RANGE_TOO_LONGG")
    if days == 13:
        raise (forecast_error)(("FORECAST_RANGE_TOO_LONGG"))
    if days == 14:
        raise forecast_error(
            # why
            "FORECAST_RANGE_TOO_LONGG",
        )


def payloads(kind: int) -> dict:
    if kind == 1:
        return {"error_code": "UPSTREAM_UNAVAILABL", "error_code": "UPSTREAM_UNAVAILABLE"}
    if kind == 2:
        return {"error_code": "UPSTREAM_UNAVAILABLE", "error_code": "UPSTREAM_GONE"}
    if kind == 3:
        return {"symbol": "UPSTREAM_GONE", "code": 1, "symbol": "UPSTREAM_GON"}
    if kind == 4:
        return {**OPTIONS, "symbol": "UPSTREAM_GONE", "retryable": False}
    if kind == 5:
        return {"errorCode": "UPSTREAM_" "GONE", "error": {"symbol": "UPSTREAM_GONE", **OPTIONS}}
    if kind == 6:
        return {"error_code": b"UPSTREAM_GONE", b"error_code": "UPSTREAM_GONE", "error": {b"symbol": "UPSTREAM_GONE"}}
    if kind == 7:
        return {"error_code": f"UPSTREAM_GONE", "errorCode": "upstream_gone"}
    if kind == 8:
        return {"err" "or_code": "UPSTREAM_GONE", "error": {"sym" "bol": "UPSTREAM_GONE"}}
    if kind == 9:
        return {"symbol": "AAPL", "domain": "x", "error": {"symbol": "AUTH_SESSION_LOCKED"}, 1: "UPSTREAM_GONE"}
    return {"error": {"error": {"symbol": "UPSTREAM_GONE"}}}
