"""The error registry (``mcp-errors.toml``): model, loader and checks (REG001...).

``load_registry(path)`` reads a registry, ``check_registry(path)`` returns its
findings; both raise ``RegistryError`` when the file cannot be checked at all.
Names are imported on first use, so reading ``mcplint.registry.model`` does not
load the checks (and LibCST) on a warm run's start.
"""

from __future__ import annotations

import importlib
from typing import Any

_EXPORTS = {
    "CHECKS": "checks",
    "CHECKS_BY_CODE": "checks",
    "RegistryCheck": "checks",
    "check_registry": "checks",
    "registry_findings": "checks",
    "load_registry": "load",
    "parse_registry": "load",
    "Domain": "model",
    "ErrorEntry": "model",
    "Registry": "model",
    "RegistryError": "model",
    "Reserved": "model",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    if name not in _EXPORTS:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f"{__name__}.{_EXPORTS[name]}"), name)
