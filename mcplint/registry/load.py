"""Read ``mcp-errors.toml`` into the model, recording schema problems as it goes.

Only what makes checking impossible raises ``RegistryError``: a file that
cannot be read or decoded, invalid TOML, or a ``schema_version`` newer than
this mcplint. Everything else (unknown keys, missing keys, wrong types)
becomes a ``Problem`` on the registry and, later, a finding.
"""

from __future__ import annotations

import difflib
import keyword
import re
import sys
from collections.abc import Iterable
from typing import Any, TypeGuard

from mcplint.registry.model import (
    RECOVERIES,
    SCHEMA_VERSION,
    STATUSES,
    Domain,
    ErrorEntry,
    Problem,
    Registry,
    RegistryError,
    Reserved,
)
from mcplint.registry.positions import PositionIndex, TomlPath
from mcplint.toml_depth import MAX_NESTING, too_deep

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on Python 3.10 only
    import tomli as tomllib

TOP_KEYS = ("schema_version", "namespace", "helpers-module", "reserved", "domains")
RESERVED_KEYS = ("range", "symbols", "reason")
# The envelope keys an error and (as defaults for its errors) a domain may set.
ENVELOPE_KEYS = ("recovery", "hints", "retry-after-ms", "user-message")
DOMAIN_KEYS = ("range", "helper", "title", "errors", *ENVELOPE_KEYS)
ERROR_KEYS = (
    "code",
    "message",
    "retryable",
    "category",
    "metadata",
    "status",
    "deprecated_since",
    "replaced_by",
    "retired_since",
    "retry_note",
    *ENVELOPE_KEYS,
)
# JSON-RPC error codes are int32 (the SDKs' ErrorData types them so; other languages' clients
# parse them into 32-bit integers): a registry code or range bound beyond them cannot be sent.
INT32_MIN, INT32_MAX = -(2**31), 2**31 - 1
INT32_RANGE = f"JSON-RPC's int32 range ({INT32_MIN} to {INT32_MAX})"
_TOML_POSITION = re.compile(r"\(at line (\d+), column \d+\)")


def load_registry(path: str) -> Registry:
    try:
        with open(path, "rb") as file:
            data = file.read()
    except OSError as error:
        raise RegistryError(path, 1, f"cannot read registry: {error.strerror}") from None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        line = data[: error.start].count(b"\n") + 1
        raise RegistryError(path, line, "registry is not valid UTF-8") from None
    return parse_registry(text, path)


def parse_registry(text: str, path: str) -> Registry:
    deep = too_deep(text)
    if deep is not None:
        raise RegistryError(path, deep, f"arrays or inline tables nested more than {MAX_NESTING} deep")
    try:
        document = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise RegistryError(path, _error_line(error, text), f"invalid TOML: {_error_message(error)}") from None
    return _Loader(document, PositionIndex(text), path).load()


def _error_line(error: tomllib.TOMLDecodeError, text: str) -> int:
    line = getattr(error, "lineno", None)  # Python 3.14+ and recent tomli
    if isinstance(line, int) and line:
        return line
    match = _TOML_POSITION.search(str(error))
    if match:
        return int(match.group(1))
    # "(at end of document)": the last line with content, not the empty one after the final newline.
    return max(len(text.rstrip().splitlines()), 1)


def _error_message(error: tomllib.TOMLDecodeError) -> str:
    return getattr(error, "msg", None) or str(error).split(" (at ")[0]


class _Loader:
    def __init__(self, document: dict[str, Any], positions: PositionIndex, path: str) -> None:
        self.document = document
        self.positions = positions
        self.path = path
        self.problems: list[Problem] = []

    def load(self) -> Registry:
        document = self.document
        self._unknown_keys(document, TOP_KEYS, (), "at the top level")
        self._missing(document, ("schema_version", "namespace"), (), "the registry")
        schema_version = self._schema_version()
        namespace = self._string(document, "namespace", ())
        helpers_module = self._helpers_module()
        reserved = tuple(self._reserved_list())
        domains = tuple(self._domains())
        # Last: the sections above record their problems while they are read.
        return Registry(
            path=self.path,
            schema_version=schema_version,
            namespace=namespace,
            helpers_module=helpers_module,
            reserved=reserved,
            domains=domains,
            positions=self.positions,
            problems=tuple(self.problems),
        )

    # -- sections ----------------------------------------------------------------
    def _schema_version(self) -> int | None:
        value = self.document.get("schema_version")
        if value is None:
            return None
        if _is_int(value) and value > SCHEMA_VERSION:
            line = self.positions.span(("schema_version",)).line
            message = f"schema_version {value} is newer than this mcplint understands ({SCHEMA_VERSION})"
            raise RegistryError(self.path, line, message)
        if not _is_int(value) or value < 1:
            self._invalid(("schema_version",), f"schema_version must be the integer {SCHEMA_VERSION}")
            return None
        return value

    def _reserved_list(self) -> Iterable[Reserved]:
        value = self.document.get("reserved")
        if value is None:
            return
        if not isinstance(value, list):
            self._invalid(("reserved",), "`reserved` must be an array of tables: write `[[reserved]]`")
            return
        for position, table in enumerate(value):
            path: TomlPath = ("reserved", position)
            if not isinstance(table, dict):
                self._invalid(path, "each `reserved` element must be a table")
                continue
            self._unknown_keys(table, RESERVED_KEYS, path, "in a reserved entry")
            if "range" not in table and "symbols" not in table:
                self._problem("missing-key", path, "a reserved entry needs `range` or `symbols` (or both)")
            yield Reserved(
                path=path,
                range=self._range(table, path),
                symbols=self._string_list(table, "symbols", path),
                reason=self._string(table, "reason", path),
            )

    def _domains(self) -> Iterable[Domain]:
        domains = self._table(self.document, "domains", ())
        for name, table in domains.items():
            path: TomlPath = ("domains", name)
            if not isinstance(table, dict):
                self._invalid(path, f"domain `{name}` must be a table: write `[domains.{name}]`")
                continue
            self._unknown_keys(table, DOMAIN_KEYS, path, f"in domain `{name}`")
            self._missing(table, ("range",), path, f"domain `{name}`")
            yield Domain(
                path=path,
                name=name,
                range=self._range(table, path),
                helper=self._identifier(table, "helper", path),
                title=self._string(table, "title", path),
                errors=tuple(self._errors(name, table, path)),
                **self._envelope(table, path),
            )

    def _errors(self, domain: str, table: dict[str, Any], domain_path: TomlPath) -> Iterable[ErrorEntry]:
        errors = self._table(table, "errors", domain_path)
        for symbol, entry in errors.items():
            path = (*domain_path, "errors", symbol)
            if not isinstance(entry, dict):
                self._invalid(path, f"error `{symbol}` must be a table: write `[domains.{domain}.errors.{symbol}]`")
                continue
            self._unknown_keys(entry, ERROR_KEYS, path, f"in error `{symbol}`")
            # An invalid status stays None: no lifecycle guesses on top of its REG003.
            status = self._choice(entry, "status", STATUSES, path) if "status" in entry else "active"
            # A retired entry without its number is a lifecycle finding, not a schema one.
            required = ("message", "retryable") if status == "retired" else ("code", "message", "retryable")
            self._missing(entry, required, path, f"error `{symbol}`")
            yield ErrorEntry(
                path=path,
                symbol=symbol,
                domain=domain,
                code=self._int(entry, "code", path),
                message=self._string(entry, "message", path, allow_empty=False),
                retryable=self._bool(entry, "retryable", path),
                category=self._string(entry, "category", path),
                metadata=self._string_list(entry, "metadata", path),
                status=status,
                deprecated_since=self._version(entry, "deprecated_since", path),
                replaced_by=self._string(entry, "replaced_by", path),
                retired_since=self._version(entry, "retired_since", path),
                retry_note=self._string(entry, "retry_note", path),
                **self._envelope(entry, path),
            )

    def _envelope(self, table: dict[str, Any], path: TomlPath) -> dict[str, Any]:
        """The envelope keys of an error or a domain, as ``ErrorEntry``/``Domain`` fields."""
        hints = self._string_list(table, "hints", path) if "hints" in table else None
        for position, hint in enumerate(hints or ()):
            if not hint.strip():
                self._invalid((*path, "hints", position), "a hint must not be empty")
        return {
            "recovery": self._choice(table, "recovery", RECOVERIES, path),
            "hints": tuple(hint for hint in hints if hint.strip()) if hints is not None else None,
            "retry_after_ms": self._positive_int(table, "retry-after-ms", path),
            "user_message": self._string(table, "user-message", path, allow_empty=False),
        }

    def _positive_int(self, table: dict[str, Any], key: str, path: TomlPath) -> int | None:
        value = self._int(table, key, path)
        if value is not None and value <= 0:
            self._invalid((*path, key), f"`{key}` must be a positive number of milliseconds, not {value}")
            return None
        return value

    # -- keys ------------------------------------------------------------------
    def _unknown_keys(self, table: dict[str, Any], known: tuple[str, ...], path: TomlPath, where: str) -> None:
        for key in table:
            if key in known:
                continue
            close = difflib.get_close_matches(key, known, n=1)
            hint = f" (did you mean `{close[0]}`?)" if close else f" (known: {', '.join(known)})"
            self._problem("unknown-key", (*path, key), f"unknown key `{key}` {where}{hint}", part="key")

    def _missing(self, table: dict[str, Any], required: tuple[str, ...], path: TomlPath, what: str) -> None:
        missing = [key for key in required if key not in table]
        if missing:
            keys = ", ".join(f"`{key}`" for key in missing)
            noun = "key" if len(missing) == 1 else "keys"
            self._problem("missing-key", path, f"{what} is missing the required {noun} {keys}")

    # -- typed values ----------------------------------------------------------
    def _table(self, table: dict[str, Any], key: str, path: TomlPath) -> dict[str, Any]:
        value = table.get(key, {})
        if isinstance(value, dict):
            return value
        self._invalid((*path, key), f"`{key}` must be a table")
        return {}

    def _string(self, table: dict[str, Any], key: str, path: TomlPath, *, allow_empty: bool = True) -> str | None:
        value = table.get(key)
        if value is None:
            return None
        if not isinstance(value, str):
            self._invalid((*path, key), f"`{key}` must be a string")
            return None
        if not allow_empty and not value.strip():
            self._invalid((*path, key), f"`{key}` must not be empty")
            return None
        return value

    def _version(self, table: dict[str, Any], key: str, path: TomlPath) -> str | None:
        value = table.get(key)
        if value is not None and not isinstance(value, str):
            # `deprecated_since = 1.4` parses as a float; versions are text.
            self._invalid((*path, key), f'`{key}` must be a version string such as "{value}"')
            # Still present for the lifecycle check, which would otherwise call it missing.
            return str(value)
        return value

    def _identifier(self, table: dict[str, Any], key: str, path: TomlPath) -> str | None:
        value = self._string(table, key, path)
        if value is not None and not _is_identifier(value):
            message = f"`{key}` must be a Python identifier (it names generated code), not {value!r}"
            self._invalid((*path, key), message)
            return None
        return value

    def _dotted_name(self, table: dict[str, Any], key: str, path: TomlPath) -> str | None:
        value = self._string(table, key, path)
        if value is not None and not all(_is_identifier(part) for part in value.split(".")):
            self._invalid((*path, key), f"`{key}` must be a dotted Python module name, not {value!r}")
            return None
        return value

    def _helpers_module(self) -> str | None:
        """A dotted module name that imports as the project's own: the generated file at a
        standard library module's or an SDK's name would shadow it for the whole project."""
        value = self._dotted_name(self.document, "helpers-module", ())
        shadowed = shadowed_module(value) if value is not None else None
        if shadowed is not None:
            message = f"`helpers-module` {value!r} would shadow {shadowed}: every import of it would get the helpers"
            self._problem("shadowing-helpers-module", ("helpers-module",), message, part="value")
            return None
        return value

    def _choice(self, table: dict[str, Any], key: str, choices: tuple[str, ...], path: TomlPath) -> str | None:
        value = self._string(table, key, path)
        if value is not None and value not in choices:
            close = difflib.get_close_matches(value, choices, n=1)
            hint = f"did you mean {close[0]!r}?" if close else f"one of {', '.join(map(repr, choices))}"
            self._invalid((*path, key), f"`{key}` {value!r} is not valid ({hint})")
            return None
        return value

    def _int(self, table: dict[str, Any], key: str, path: TomlPath) -> int | None:
        value = table.get(key)
        if value is not None and not _is_int(value):
            self._invalid((*path, key), f"`{key}` must be an integer")
            return None
        if value is not None and not INT32_MIN <= value <= INT32_MAX:
            self._invalid((*path, key), f"`{key}` {value} is outside {INT32_RANGE}")
            return None
        return value

    def _bool(self, table: dict[str, Any], key: str, path: TomlPath) -> bool | None:
        value = table.get(key)
        if value is not None and not isinstance(value, bool):
            self._invalid((*path, key), f"`{key}` must be true or false, not {value!r}")
            return None
        return value

    def _string_list(self, table: dict[str, Any], key: str, path: TomlPath) -> tuple[str, ...]:
        value = table.get(key)
        if value is None:
            return ()
        if not isinstance(value, list):
            self._invalid((*path, key), f"`{key}` must be a list of strings")
            return ()
        for position, item in enumerate(value):
            if not isinstance(item, str):
                self._invalid((*path, key, position), f"`{key}` must be a list of strings, not {item!r}")
        return tuple(item for item in value if isinstance(item, str))

    def _range(self, table: dict[str, Any], path: TomlPath) -> tuple[int, int] | None:
        value = table.get("range")
        if value is None:
            return None
        if isinstance(value, list) and len(value) == 2 and all(_is_int(bound) for bound in value):
            if all(INT32_MIN <= bound <= INT32_MAX for bound in value):
                return value[0], value[1]
            message = f"`range` bounds must be within {INT32_RANGE}; got {value!r}"
            self._problem("invalid-range", (*path, "range"), message)
            return None
        self._problem("invalid-range", (*path, "range"), f"`range` must be [lo, hi], two integers; got {value!r}")
        return None

    # -- problems ----------------------------------------------------------------
    def _invalid(self, path: TomlPath, message: str) -> None:
        self._problem("invalid-value", path, message, part="value")

    def _problem(self, check: str, path: TomlPath, message: str, part: str = "entry") -> None:
        self.problems.append(Problem(check, path, message, part))


# Top-level names a project must not take: the generated helpers (and the server) import them.
_SDK_PACKAGES = {"mcp": "the MCP SDK package `mcp`", "fastmcp": "the `fastmcp` package", "mcplint": "mcplint itself"}


def shadowed_module(module: str) -> str | None:
    """What a project module of this dotted name would hide from imports, or None."""
    top = module.split(".")[0]
    if top in _SDK_PACKAGES:
        return _SDK_PACKAGES[top]
    if top in sys.stdlib_module_names:
        return f"the standard library's `{top}`"
    return None


def _is_int(value: object) -> TypeGuard[int]:
    return isinstance(value, int) and not isinstance(value, bool)


def _is_identifier(value: str) -> bool:
    return value.isidentifier() and not keyword.iskeyword(value)
