"""``mcplint registry generate``: the typed helper module built from the registry.

``generate_helpers(registry, framework)`` returns the module's source: the
same registry and framework always give the same bytes (the header carries
``registry_hash``, a hash of the registry's content rather than of its
formatting). ``run_generate`` writes it (atomically) or, with ``check``, tells
whether the file on disk is stale.

What the module contains is in ``codegen_template`` (shared) and
``codegen_frameworks`` (per framework); this module decides the per-domain
parts and checks that nothing the registry says can break the generated code:
strings only enter as escaped literals, names only as checked identifiers.
"""

from __future__ import annotations

import ast
import builtins
import hashlib
import json
import keyword
import os
import re
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from mcplint.atomic import mode_for, write_atomically
from mcplint.packaging.placement import shipped_module_file
from mcplint.registry.codegen_frameworks import FRAMEWORKS
from mcplint.registry.codegen_python import camel_name, display_width, python_literal, snake_name, string_literal
from mcplint.registry.codegen_template import (
    DOCSTRING,
    HEADER,
    IMPORTS,
    RUNTIME_FUNCTIONS,
    RUNTIME_TYPES,
)
from mcplint.registry.envelope import Envelope, envelope_of
from mcplint.registry.load import load_registry
from mcplint.registry.model import Domain, ErrorEntry, Problem, Registry, RegistryError
from mcplint.registry.positions import TomlPath
from mcplint.terminal import printable

FRAMEWORK_CHOICES = (*FRAMEWORKS, "auto")
LINE_LENGTH = 88  # black's default: single-line forms are used only when they fit
INDENT = "    "
_PUBLIC_NAMES = (
    "BatchItem",
    "BatchResult",
    "BatchStatus",
    "ErrorStats",
    "JsonValue",
    "MetadataValue",
    "NAMESPACE",
    "REGISTRY_SHA256",
    "RETIRED_CODES",
    "RegisteredError",
    "RegisteredPromptError",
    "RegisteredResourceError",
    "RegisteredToolError",
    "WireData",
    "WireError",
    "error_stats",
    "reset_error_stats",
)


@dataclass(frozen=True)
class _DomainPlan:
    """One domain's part of the module: its helper, its ``Literal`` type and the
    entries it offers (active and deprecated; retired ones are not offered)."""

    domain: Domain
    helper: str
    symbol_type: str
    entries: tuple[ErrorEntry, ...]


# -- the module --------------------------------------------------------------------
def generate_helpers(registry: Registry, framework: str) -> str:
    """The helper module's source for ``framework`` (mcp1, mcp2 or fastmcp).

    Raises ``RegistryError`` when the registry cannot give a working module: an
    offered entry without a code or message, or a helper name that is not
    usable (a duplicate, a keyword, or a name the module already defines).
    """
    if framework not in FRAMEWORKS:
        raise ValueError(f"unknown framework {framework!r} (expected one of {', '.join(FRAMEWORKS)})")
    flavor = FRAMEWORKS[framework]
    plans = _plan_domains(registry)
    digest = registry_hash(registry)
    header = HEADER.substitute(registry_hash=digest, framework=flavor.name, framework_description=flavor.description)
    sections = [
        IMPORTS.substitute(framework_imports=flavor.imports) + "\n" + _all_list(plans),
        RUNTIME_TYPES.substitute(
            namespace_assignment=_assignment("NAMESPACE", string_literal(registry.namespace or "")),
            registry_hash_literal=string_literal(digest),
            tool_result=flavor.tool_result,
            families=flavor.families,
            result_type=flavor.result_type,
        ),
        *(_domain_section(plan) for plan in plans),
        RUNTIME_FUNCTIONS.substitute(
            entries=_entries_table(plans),
            retired=_retired_table(registry),
            result_builder=flavor.result_builder,
        ),
    ]
    # The header comments sit right above the docstring; then one blank line, and
    # two between the sections (black's spacing around top-level definitions).
    source = header + DOCSTRING + "\n" + "\n\n\n".join(section.strip("\n") for section in sections) + "\n"
    _check_top_level_names(source, plans, registry)
    return source


def _all_list(plans: list[_DomainPlan]) -> str:
    names = [*_PUBLIC_NAMES, *(name for plan in plans for name in (plan.symbol_type, plan.helper))]
    return "__all__ = [\n" + "".join(f"{INDENT}{string_literal(name)},\n" for name in names) + "]"


def _domain_section(plan: _DomainPlan) -> str:
    return f"""\
{_symbol_type(plan)}


def {plan.helper}(
    symbol: {plan.symbol_type},
    /,
    *,
    details: JsonValue = None,
    hint: str | None = None,
    retry_after_ms: int | None = None,
    **metadata: MetadataValue,
) -> RegisteredToolError:
    \"\"\"The error ``symbol`` of this domain, message filled from ``metadata``:
    raise it, or return ``.tool_result()`` from a tool. ``hint`` adds a hint
    for this call; ``retry_after_ms`` replaces the registry's delay.\"\"\"
    return _create(
        {string_literal(plan.domain.name)},
        symbol,
        details,
        hint,
        retry_after_ms,
        metadata,
    )
"""


def _assignment(name: str, literal: str) -> str:
    """``name = literal``, in parentheses where black puts them: when the line is too
    long and the literal alone fits on its own line."""
    line = f"{name} = {literal}"
    if display_width(line) <= LINE_LENGTH or display_width(INDENT + literal) > LINE_LENGTH:
        return line
    return f"{name} = (\n{INDENT}{literal}\n)"


def _symbol_type(plan: _DomainPlan) -> str:
    """``XSymbol = Literal[...]``, one symbol a line; deprecated ones say so."""
    symbols = [(string_literal(entry.symbol), entry.status == "deprecated") for entry in plan.entries]
    if len(symbols) == 1:  # black keeps a one-element subscript on one line when it fits
        ((literal, deprecated),) = symbols
        comment = "  # deprecated" if deprecated else ""
        line = f"{plan.symbol_type} = Literal[{literal}]{comment}"  # black counts the comment too
        if display_width(line) <= LINE_LENGTH:
            return line
        return f"{plan.symbol_type} = Literal[\n{INDENT}{literal}\n]{comment}"
    lines = [f"{INDENT}{literal},{'  # deprecated' if deprecated else ''}" for literal, deprecated in symbols]
    return f"{plan.symbol_type} = Literal[\n" + "\n".join(lines) + "\n]"


def _entries_table(plans: list[_DomainPlan]) -> str:
    if not plans:
        return "{}"
    lines = ["{"]
    for plan in plans:
        lines.append(f"{INDENT}{string_literal(plan.domain.name)}: {{")
        for entry in plan.entries:
            envelope = envelope_of(entry, plan.domain)
            lines += [
                f"{INDENT * 2}{string_literal(entry.symbol)}: _Entry(",
                f"{INDENT * 3}code={python_literal(entry.code)},",
                f"{INDENT * 3}message={string_literal(entry.message or '')},",
                # No decision in the registry means: do not retry (AIP-194's safe default).
                f"{INDENT * 3}retryable={python_literal(bool(entry.retryable))},",
                f"{INDENT * 3}recovery={string_literal(envelope.recovery)},",
                *_envelope_arguments(envelope),
                f"{INDENT * 2}),",
            ]
        lines.append(f"{INDENT}}},")
    lines.append("}")
    return "\n".join(lines)


def _envelope_arguments(envelope: Envelope) -> list[str]:
    """The ``_Entry`` keywords the registry sets; left out, their defaults say "none"."""
    lines = []
    if envelope.recovery_path is not None:
        lines.append(f"{INDENT * 3}sends_recovery=True,")
    one_hint = f"{INDENT * 3}hints=({string_literal(envelope.hints[0])},)," if len(envelope.hints) == 1 else ""
    if one_hint and display_width(one_hint) <= LINE_LENGTH:  # black joins a one-element tuple that fits
        lines.append(one_hint)
    elif envelope.hints:
        lines.append(f"{INDENT * 3}hints=(")
        lines += [f"{INDENT * 4}{string_literal(hint)}," for hint in envelope.hints]
        lines.append(f"{INDENT * 3}),")
    if envelope.retry_after_ms is not None:
        lines.append(f"{INDENT * 3}retry_after_ms={python_literal(envelope.retry_after_ms)},")
    if envelope.user_message is not None:
        lines.append(f"{INDENT * 3}user_message={string_literal(envelope.user_message)},")
    return lines


def _retired_table(registry: Registry) -> str:
    retired = [entry for entry in registry.errors if entry.status == "retired" and entry.code is not None]
    if not retired:
        return "{}"
    lines = [f"{INDENT}{string_literal(entry.symbol)}: {python_literal(entry.code)}," for entry in retired]
    return "{\n" + "\n".join(lines) + "\n}"


# -- what the registry must give -------------------------------------------------
def _plan_domains(registry: Registry) -> list[_DomainPlan]:
    plans: list[_DomainPlan] = []
    for domain in registry.domains:
        offered = tuple(entry for entry in domain.errors if entry.status != "retired")
        if not offered:  # no symbol to offer: an empty Literal is not a type
            continue
        for entry in offered:
            _require_usable(entry, registry)
        helper = helper_name(domain)
        if not (helper.isascii() and helper.isidentifier()) or keyword.iskeyword(helper):
            problem = f"helper name {helper!r} is not an ASCII Python identifier"
            raise _error(registry, (*domain.path, "helper"), problem)
        plans.append(_DomainPlan(domain, helper, _symbol_type_name(domain.name), offered))
    return plans


def _require_usable(entry: ErrorEntry, registry: Registry) -> None:
    if entry.code is None:
        raise _error(registry, entry.path, f"error `{entry.symbol}` has no valid `code`")
    if entry.message is None:
        raise _error(registry, entry.path, f"error `{entry.symbol}` has no valid `message`")


def default_helper(domain_name: str) -> str:
    stem = snake_name(domain_name)
    if not stem or stem[0].isdigit():
        stem = f"domain_{stem}".rstrip("_")
    return f"{stem}_error"


def helper_name(domain: Domain) -> str:
    """The generated helper of a domain: its `helper`, else `<domain>_error`. Fixes and
    rules that name helpers use this, so they agree with the generated module."""
    return domain.helper or default_helper(domain.name)


def _symbol_type_name(domain_name: str) -> str:
    stem = camel_name(domain_name)
    if not stem or stem[0].isdigit():
        stem = f"Domain{stem}"
    return f"{stem}Symbol"


_BUILTIN_NAMES = frozenset(name for name in dir(builtins) if not name.startswith("__"))


def _check_top_level_names(source: str, plans: list[_DomainPlan], registry: Registry) -> None:
    """Each helper and ``Literal`` name must be new: not a builtin (the module's
    own code uses them), not bound twice at the top level."""
    seen: set[str] = set()
    for name in _top_level_names(ast.parse(source)):
        if name in seen or name in _BUILTIN_NAMES:
            raise _name_clash(name, plans, registry)
        seen.add(name)


def _top_level_names(module: ast.Module) -> Iterator[str]:
    for node in module.body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            yield node.name
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            for alias in node.names:
                if alias.name != "annotations":  # `from __future__ import annotations` binds nothing
                    yield (alias.asname or alias.name).split(".")[0]
        elif isinstance(node, ast.Assign):
            yield from (target.id for target in node.targets if isinstance(target, ast.Name))
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            yield node.target.id


def _name_clash(name: str, plans: list[_DomainPlan], registry: Registry) -> RegistryError:
    for plan in reversed(plans):  # of two domains with one name, the later one is the clash
        if name in (plan.helper, plan.symbol_type):
            key = "helper" if name == plan.helper else None
            path = (*plan.domain.path, key) if key and plan.domain.helper else plan.domain.path
            what = "helper" if key else "symbol type"
            return _error(
                registry,
                path,
                f"{what} name `{name}` of domain `{plan.domain.name}` is already taken in the generated module",
            )
    raise AssertionError(f"the generated module binds {name!r} twice")  # a bug in the template


def _error(registry: Registry, path: TomlPath, problem: str) -> RegistryError:
    line = registry.positions.span(path).line
    return RegistryError(registry.path, line, f"cannot generate helpers: {problem}")


# -- the registry's hash ---------------------------------------------------------------
def registry_hash(registry: Registry) -> str:
    """SHA-256 of the registry's content as canonical JSON: comments, key order
    inside a table and formatting do not change it."""
    content = {
        "schema_version": registry.schema_version,
        "namespace": registry.namespace,
        "helpers_module": registry.helpers_module,
        "reserved": [[item.range, item.symbols, item.reason] for item in registry.reserved],
        "domains": [_domain_content(domain) for domain in registry.domains],
    }
    text = json.dumps(content, sort_keys=True, ensure_ascii=True, separators=(",", ":"))
    return hashlib.sha256(text.encode("ascii")).hexdigest()


# Hashed only when set, so a registry without them keeps the hash it had before they existed.
_ENVELOPE_FIELDS = ("recovery", "hints", "retry_after_ms", "user_message")


def _domain_content(domain: Domain) -> dict[str, object]:
    fields: tuple[str, ...] = ("code", "message", "retryable", "category", "metadata", "status")
    fields += ("deprecated_since", "replaced_by", "retired_since", "retry_note")
    return {
        "name": domain.name,
        "range": domain.range,
        "helper": domain.helper,
        "title": domain.title,
        **_set_envelope_fields(domain),
        "errors": [
            {
                "symbol": entry.symbol,
                **{field: getattr(entry, field) for field in fields},
                **_set_envelope_fields(entry),
            }
            for entry in domain.errors
        ],
    }


def _set_envelope_fields(owner: Domain | ErrorEntry) -> dict[str, object]:
    return {field: getattr(owner, field) for field in _ENVELOPE_FIELDS if getattr(owner, field) is not None}


# -- where it goes ----------------------------------------------------------------------
def helpers_path(registry: Registry, project_root: Path | str) -> Path:
    """The file of ``helpers-module``: ``acme_weather.errors`` is
    ``acme_weather/errors.py``, under ``src/`` when the project has one (unless
    the package already sits at the root)."""
    root = Path(project_root)
    if not registry.helpers_module:
        line = registry.positions.span(("helpers-module",)).line
        unusable = next((problem for problem in registry.problems if problem.path == ("helpers-module",)), None)
        if unusable is not None:  # set, but not to a name the helpers can have (REG003, REG017)
            raise RegistryError(registry.path, line, f"cannot place the helpers: {unusable.message}")
        message = "the registry has no `helpers-module`: set it, or pass --output"
        raise RegistryError(registry.path, line, message)
    return module_path(registry.helpers_module, root)


def module_path(module: str, project_root: Path) -> Path:
    """Where the wheel the project's build configuration describes takes ``module`` from
    (`pkg.errors` of hatch's `packages = ["lib/pkg"]` is `lib/pkg/errors.py`); without one,
    ``<root>/src/...`` for a src layout, else ``<root>/...``."""

    shipped = shipped_module_file(module, project_root)
    if shipped is not None:
        return shipped
    parts = module.split(".")
    relative = Path(*parts[:-1], parts[-1] + ".py")
    package = parts[0]
    if (project_root / "src").is_dir() and not (project_root / package).is_dir():
        return project_root / "src" / relative
    return project_root / relative


# -- which framework --------------------------------------------------------------------
_SKIPPED_DIRECTORIES = frozenset(
    {
        ".git",
        ".hg",
        ".venv",
        "venv",
        "env",
        ".tox",
        ".nox",
        "node_modules",
        "build",
        "dist",
        "site-packages",
        "__pycache__",
    }
)
# (the flavour, what shows it), first match wins: fastmcp servers import mcp too, and a
# high-level server's project may have low-level parts.
_FRAMEWORK_IMPORTS = (
    ("fastmcp", re.compile(r"^\s*(?:from\s+fastmcp[\s.]|import\s+fastmcp\b)", re.MULTILINE)),
    (
        "mcp2",
        re.compile(
            r"^\s*(?:from\s+mcp\.server\.mcpserver\b|import\s+mcp\.server\.mcpserver\b"
            # `from mcp.server import MCPServer`, `from mcp import (Client,\n MCPServer)`
            r"|from\s+mcp(?:\.server)?\s+import\s+(?:[^(\n]*|\([^)]*)\bMCPServer\b)",
            re.MULTILINE,
        ),
    ),
    ("mcp1", re.compile(r"^\s*(?:from|import)\s+mcp\.server\.fastmcp\b", re.MULTILINE)),
    # Only a low-level `Server`: a module that imports on mcp 1.x and 2.x alike (whichever
    # its `mcp>=1` resolves to), never `mcp.server.fastmcp`.
    (
        "lowlevel",
        re.compile(
            r"^\s*(?:from\s+mcp\.server\.lowlevel\b|import\s+mcp\.server\.lowlevel\b"
            r"|from\s+mcp\.server\s+import\s+(?:[^(\n]*|\([^)]*)\bServer\b)",
            re.MULTILINE,
        ),
    ),
    # mcp 2.x's name of the SDK error, without a server: the project is on mcp 2.x.
    ("mcp2", re.compile(r"^\s*from\s+mcp(?:\.shared\.exceptions)?\s+import\s+(?:[^(\n]*|\([^)]*)\bMCPError\b", re.MULTILINE)),
)
_MAX_BYTES_READ = 64 * 1024  # imports sit at the top; a huge file is not read whole


def detect_framework(project_root: Path | str) -> str:
    """``fastmcp``, ``mcp2``, ``mcp1`` or ``lowlevel`` (a low-level ``Server`` only) from
    the imports of the project's ``*.py`` files (a regex, no parsing); ``mcp1`` when
    nothing tells."""
    found: set[int] = set()  # indexes into _FRAMEWORK_IMPORTS
    for path in _python_files(Path(project_root)):
        try:
            with open(path, "rb") as file:
                text = file.read(_MAX_BYTES_READ).decode("utf-8", errors="replace")
        except OSError:
            continue
        found.update(index for index, (_, pattern) in enumerate(_FRAMEWORK_IMPORTS) if pattern.search(text))
        if 0 in found:  # fastmcp: nothing else can win
            break
    return _FRAMEWORK_IMPORTS[min(found)][0] if found else "mcp1"


def _python_files(root: Path) -> Iterator[Path]:
    for directory, subdirectories, files in os.walk(root):
        subdirectories[:] = sorted(name for name in subdirectories if name not in _SKIPPED_DIRECTORIES)
        for name in sorted(files):
            if name.endswith(".py"):
                yield Path(directory, name)


# -- the command --------------------------------------------------------------------------
def stale_helpers(registry: Registry) -> list[Problem]:
    """REG016: the generated module exists but is not what the registry generates now."""
    if not registry.helpers_module:
        return []
    root = Path(registry.path).resolve().parent
    try:
        target = helpers_path(registry, root)
        current = target.read_text(encoding="utf-8")
    except (RegistryError, OSError, UnicodeDecodeError):
        return []  # not generated (yet), or not where helpers-module says: nothing to compare
    header = re.search(r"^# framework: (\w+)", current, re.MULTILINE)
    framework = header.group(1) if header and header.group(1) in FRAMEWORKS else detect_framework(root)
    try:
        expected = generate_helpers(registry, framework)
    except RegistryError:
        return []  # the registry's own findings say why nothing can be generated
    if current == expected:
        return []
    message = f"{target.name} is stale: run `mcplint registry generate` to regenerate it from this registry"
    return [Problem("stale-helpers", ("helpers-module",), message, "value")]


def run_generate(registry_path: str, output: str | None, framework: str, check: bool) -> int:
    """Write the helper module (exit 0), or with ``check`` compare it with the file
    on disk (0 current, 1 stale or missing). One line on stderr either way; 2 and
    the reason when the registry cannot be read or generated from."""
    project_root = Path(registry_path).resolve().parent
    try:
        registry = load_registry(registry_path)
        if framework == "auto":
            framework = detect_framework(project_root)
        if framework not in FRAMEWORKS:
            return _fail(f"unknown framework {framework!r}: use one of {', '.join(FRAMEWORK_CHOICES)}")
        source = generate_helpers(registry, framework)
        target = Path(output) if output else helpers_path(registry, project_root)
    except RegistryError as error:
        return _fail(str(error))
    if check:
        return _check_current(target, source)
    if not replaceable(target):
        return _fail(f"refusing to overwrite {target}: mcplint did not generate it (set another helpers-module, or --output)")
    try:
        write_text_atomically(target, source)
    except OSError as error:
        return _fail(f"cannot write {target}: {error.strerror or error}")
    _say(f"wrote {target} ({framework})")
    return 0


GENERATED_MARK = "@generated by mcplint"


def replaceable(target: Path) -> bool:
    """Missing, or a module mcplint generated: never a project's own `errors.py`."""
    try:
        with target.open(encoding="utf-8", errors="replace") as handle:
            head = [handle.readline() for _ in range(3)]
    except FileNotFoundError:
        return True
    except OSError:
        return False
    return any(GENERATED_MARK in line for line in head)


def _check_current(target: Path, source: str) -> int:
    try:
        current = target.read_bytes()
    except FileNotFoundError:
        _say(f"{target} is missing: run `mcplint registry generate`")
        return 1
    except OSError as error:
        return _fail(f"cannot read {target}: {error.strerror or error}")
    if current != source.encode("utf-8"):
        _say(f"{target} is stale: run `mcplint registry generate`")
        return 1
    _say(f"{target} is up to date")
    return 0


def write_text_atomically(target: Path, source: str) -> None:
    """The file in UTF-8, replaced atomically, keeping its mode (a new one gets the umask's)."""
    target.parent.mkdir(parents=True, exist_ok=True)
    write_atomically(target, source.encode("utf-8"), mode_for(target))


def _say(message: str) -> None:
    print(f"mcplint: {message}", file=sys.stderr)


def _fail(message: str) -> int:
    print(f"mcplint: error: {printable(message)}", file=sys.stderr)
    return 2
