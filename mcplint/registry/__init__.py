"""The error registry (``mcp-errors.toml``): model, loader and checks (REG001...).

``load_registry(path)`` reads a registry, ``check_registry(path)`` returns its
findings; both raise ``RegistryError`` when the file cannot be checked at all.
"""

from __future__ import annotations

from mcplint.registry.checks import CHECKS, CHECKS_BY_CODE, RegistryCheck, check_registry, registry_findings
from mcplint.registry.load import load_registry, parse_registry
from mcplint.registry.model import Domain, ErrorEntry, Registry, RegistryError, Reserved

__all__ = [
    "CHECKS",
    "CHECKS_BY_CODE",
    "Domain",
    "ErrorEntry",
    "Registry",
    "RegistryCheck",
    "RegistryError",
    "Reserved",
    "check_registry",
    "load_registry",
    "parse_registry",
    "registry_findings",
]
