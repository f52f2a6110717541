"""`mcplint migrate`: a server's ad-hoc errors become a registry, helpers and rewritten sites.

The sites are every finding a registry error can replace: MCP001's
returned error payloads, MCP002's raw raises, MCP005's empty fallbacks,
MCP006's leaks into a raised message and MCP007's protocol errors from tools.
Each site has a message (`registry.match.site_message`: its text without the
caught exception's, or what failed); each distinct message becomes a registry
entry (symbol from its words, code from a free range of its domain; existing
entries are never renumbered), the helpers are generated, and the sites are
rewritten by the rules' own fixes (MCP008's `mask_error_details=True` too).
Only entries that a rewrite uses are kept. Dry run by default: the full diff
and a summary; `--write` applies.
"""

from __future__ import annotations

import hashlib
import re
import tempfile
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from mcplint.analysis.loggers import imports_a_helper
from mcplint.analysis.project import module_of
from mcplint.check import fail
from mcplint.config import (
    DEFAULT_LINE_LENGTH,
    DEFAULT_REGISTRY,
    CliOverrides,
    ConfigError,
    ConfigResolver,
    resolve_selectors,
    tomllib,
)
from mcplint.engine.discovery import PathNotFound, discover
from mcplint.engine.fixer import unified_diff
from mcplint.engine.result import FileResult
from mcplint.engine.runner import FileTask, RunResult, Workers, default_jobs, run, shared_workers
from mcplint.finding import Finding
from mcplint.migrate_boundary import LIBRARY, mapped_texts, patched, plan_boundary
from mcplint.migrate_envelope import DEPENDENCY_CODES, category_for, recovery_for, retryable_for, source_hints
from mcplint.migrate_report import (
    Domain,
    LeftSite,
    MigrationReport,
    RuleCount,
    Symbol,
    file_changes,
    markdown,
    text_lines,
)
from mcplint.packaging.placement import NoPlace, place_helpers, unshipped_reason
from mcplint.progress import progress_bar
from mcplint.registry.codegen import (
    detect_framework,
    generate_helpers,
    helper_name,
    helpers_path,
    module_path,
    replaceable,
    write_text_atomically,
)
from mcplint.registry.load import load_registry, parse_registry
from mcplint.registry.match import placeholders
from mcplint.registry.model import ErrorEntry, Registry, RegistryError

if TYPE_CHECKING:
    from mcplint.migrate_boundary import Boundary

SITE_CODES = ("MCP001", "MCP002", "MCP005", "MCP006", "MCP007")
FIX_CODES = (*SITE_CODES, "MCP008")
DOMAIN_SIZE = 100
_WORD = re.compile(r"[A-Za-z0-9]+")
_PLACEHOLDER = re.compile(r"\{(\w+)\}")
_MAX_SYMBOL_WORDS = 6


@dataclass(frozen=True)
class NewEntry:
    domain: str
    symbol: str
    code: int
    message: str
    dependency: bool = False  # a site of the shape hides a failed call (MCP005)
    hints: tuple[str, ...] = ()  # the guidance a site's own payload gives (never invented)

    @property
    def category(self) -> str | None:
        """From what the sites are and say (`migrate_envelope`): `Invalid parameters` is invalid
        input, a hidden failed call an outage, "not found" a missing resource ..."""
        return category_for(self.message, self.dependency)

    @property
    def retryable(self) -> bool:
        return retryable_for(self.category)

    @property
    def recovery(self) -> str:
        return recovery_for(self.category)

    @property
    def metadata(self) -> list[str]:
        return list(dict.fromkeys(placeholders(self.message)))


@dataclass
class Plan:
    registry_path: Path
    helpers_module: str
    adds_helpers_module: bool  # an existing registry without `helpers-module` gets one
    entries: list[NewEntry] = field(default_factory=list)
    new_domains: dict[str, tuple[int, int]] = field(default_factory=dict)


@dataclass(frozen=True)
class MigrateOptions:
    """What the report shows and where, and which rules are migrated (check's selector syntax)."""

    stat: bool = False  # the summary instead of the diff
    report_file: str | None = None  # also as markdown
    select: tuple[str, ...] = ()
    ignore: tuple[str, ...] = ()
    codes: tuple[str, ...] = FIX_CODES  # what select and ignore leave of FIX_CODES


def migrated_codes(select: tuple[str, ...], ignore: tuple[str, ...]) -> tuple[str, ...]:
    """The rules a migration rewrites: those of FIX_CODES that `--select` names (all when it is
    not given) and `--ignore` does not; a selector no rule has is a ConfigError, as in check."""
    chosen = resolve_selectors(select) if select else set(FIX_CODES)
    chosen -= resolve_selectors(ignore)
    return tuple(code for code in FIX_CODES if code in chosen)


def symbol_for(message: str) -> str:
    """`Note {note_id} does not exist.` → `NOTE_DOES_NOT_EXIST`: the constant words, upper snake case."""
    words = _WORD.findall(_PLACEHOLDER.sub(" ", message))
    symbol = "_".join(word.upper() for word in words[:_MAX_SYMBOL_WORDS]) or "ERROR"
    return f"E_{symbol}" if symbol[0].isdigit() else symbol


def domain_for(path: str) -> str:
    """A site's domain: the top-level package (or module) it lives in."""
    _, module, _ = module_of(Path(path))
    name = (module or Path(path).stem).split(".")[0]
    return re.sub(r"\W+", "_", name).strip("_").lower() or "errors"


def plan_entries(
    sites: list[Finding],
    existing: Registry | None,
    registry_path: Path,
    domain: str | None,
    base: int,
    root: Path,
    helpers_module: str | None = None,
) -> Plan:
    taken_symbols = {entry.symbol for entry in existing.errors} if existing else set()
    taken_codes = {entry.code for entry in existing.errors if entry.code is not None} if existing else set()
    ranges = {d.name: d.range for d in existing.domains if d.range} if existing else {}
    reserved = [r.range for r in existing.reserved if r.range] if existing else []
    plan = Plan(
        registry_path,
        helpers_module or _helpers_module(existing, sites, root),
        existing is not None and not existing.helpers_module,
    )
    # A fix matches a message by its constant text alone (placeholder names aside), and only a
    # unique match counts: one entry per shape, across domains.
    by_shape: dict[str, NewEntry | None] = {_shape(e.message or ""): None for e in existing.errors} if existing else {}
    needed = Counter(
        domain or domain_for(site.path) for site in _distinct_shapes(sites, set(by_shape))
    )  # a new domain's range holds all of its entries, in blocks of DOMAIN_SIZE
    for site in sites:
        site_domain = domain or domain_for(site.path)
        message = _sentence(site.error_template or "")
        if _shape(message) in by_shape:
            continue
        size = -(-needed[site_domain] // DOMAIN_SIZE) * DOMAIN_SIZE
        low, high = ranges.get(site_domain) or plan.new_domains.setdefault(
            site_domain, _free_range(base, [*ranges.values(), *plan.new_domains.values(), *reserved], size)
        )
        code = next((code for code in range(low, high + 1) if code not in taken_codes), None)
        if code is None:
            continue  # an existing domain's range is full: widening it is for a human
        symbol = _free_symbol(symbol_for(message), taken_symbols)
        taken_codes.add(code)
        taken_symbols.add(symbol)
        by_shape[_shape(message)] = NewEntry(site_domain, symbol, code, message)
    of_shape: dict[str, list[Finding]] = {}  # each site's shape computed once, not once per entry
    for site in sites:
        of_shape.setdefault(_shape(_sentence(site.error_template or "")), []).append(site)
    plan.entries = [
        _with_envelope(entry, of_shape.get(_shape(entry.message), []))
        for entry in by_shape.values()
        if entry is not None
    ]
    return plan


def _with_envelope(entry: NewEntry, own: list[Finding]) -> NewEntry:
    """What every site of the entry's shape (``own``, in the order of the sites) tells about
    it: a hidden failed call, hints."""
    hints = tuple(dict.fromkeys(hint for site in own for hint in source_hints(site)))
    return replace(entry, dependency=any(site.code in DEPENDENCY_CODES for site in own), hints=hints)


def _sentence(message: str) -> str:
    """A client-facing message starts with a capital: `could not save note` → `Could not save note`;
    an identifier stays as it is (`older_than_days must be ...`)."""
    first = message.split(" ", 1)[0]
    if not first.isalpha() or not first.islower():
        return message
    return message[:1].upper() + message[1:]


def _shape(message: str) -> str:
    """What a fix matches on: the constant text, case, spacing and a final full stop aside."""
    return " ".join(_PLACEHOLDER.sub("{}", message).split()).casefold().rstrip(".!")


def _free_symbol(symbol: str, taken: set[str]) -> str:
    candidate, number = symbol, 2
    while candidate in taken:
        candidate, number = f"{symbol}_{number}", number + 1
    return candidate


def _free_range(base: int, used: list[tuple[int, int]], size: int = DOMAIN_SIZE) -> tuple[int, int]:
    low = base
    while any(low <= high and low + size - 1 >= start for start, high in used):
        low += DOMAIN_SIZE
    return low, low + size - 1


def _distinct_shapes(sites: list[Finding], known: set[str]) -> list[Finding]:
    """The first site of each message shape not known yet."""
    distinct = []
    for site in sites:
        shape = _shape(_sentence(site.error_template or ""))
        if shape not in known:
            known.add(shape)
            distinct.append(site)
    return distinct


def _helpers_module(existing: Registry | None, sites: list[Finding], root: Path) -> str:
    """The registry's `helpers-module`; else `<package>.errors` when every site is in one
    package; else a top-level `mcp_errors` (importing one package's module from the others
    would run that package's `__init__`, an import cycle in waiting). `mcp_errors`,
    `mcp_errors_2`, ... where the project has a module of that name of its own."""
    if existing is not None and existing.helpers_module:
        return existing.helpers_module

    placed = place_helpers(root, sorted({Path(site.path) for site in sites}), replaceable)  # in the wheel
    if placed is not None:
        return placed.module
    packages = {module_of(Path(site.path))[1].split(".")[0] for site in sites}
    single = next(iter(packages)) if len(packages) == 1 else None
    if single is not None and any("." in module_of(Path(site.path))[1] for site in sites):
        names = [f"{single}.errors", f"{single}.mcp_errors"]
    else:
        names = ["mcp_errors"]
    names += [f"mcp_errors_{number}" for number in range(2, 100)]
    return next(name for name in names if replaceable(module_path(name, root)))


def project_namespace(root: Path) -> str:
    """The registry's namespace: the distribution's name (`[project].name`, else poetry's
    `[tool.poetry].name`) from the project's pyproject.toml, else the directory's name (a
    checkout's directory is often `repo-main` or `src`, not what the project is called)."""
    try:
        document = tomllib.loads((root / "pyproject.toml").read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError):
        return root.name
    for table in (document.get("project"), document.get("tool", {}).get("poetry")):
        name = table.get("name") if isinstance(table, dict) else None
        if isinstance(name, str) and name.strip():
            return name.strip()
    return root.name


def registry_text(plan: Plan, existing_text: str | None, namespace: str) -> str:
    """The existing file untouched, with the new domains and entries appended."""
    lines: list[str] = []
    if existing_text is None:
        lines += [
            "# The error registry: written by `mcplint migrate`; edit messages, retryable and categories freely.",
            "schema_version = 1",
            f"namespace = {_toml_string(namespace)}",
            f'helpers-module = "{plan.helpers_module}"',
        ]
    for domain, (low, high) in plan.new_domains.items():
        lines += ["", f"[domains.{domain}]", f"range = [{low}, {high}]"]
    for entry in plan.entries:
        lines += ["", f"[domains.{entry.domain}.errors.{entry.symbol}]", f"code = {entry.code}"]
        lines += [f"message = {_toml_string(entry.message)}", f"retryable = {str(entry.retryable).lower()}"]
        if entry.category is not None:
            lines.append(f"category = {_toml_string(entry.category)}")
        lines += _envelope_lines(entry)
        if entry.metadata:
            lines.append(f"metadata = [{', '.join(_toml_string(name) for name in entry.metadata)}]")
    if existing_text is None:
        return "\n".join(lines) + "\n"
    if plan.adds_helpers_module:
        existing_text = _with_top_level_key(existing_text, f'helpers-module = "{plan.helpers_module}"')
    return existing_text.rstrip("\n") + "\n" + "\n".join(lines) + "\n"


def _envelope_lines(entry: NewEntry) -> list[str]:
    """`recovery` (from the category: see `migrate_envelope`) and `hints`, when the source gave some."""
    lines = [f"recovery = {_toml_string(entry.recovery)}"]
    if entry.hints:
        lines.append(f"hints = [{', '.join(_toml_string(hint) for hint in entry.hints)}]")
    return lines


def _with_top_level_key(text: str, line: str) -> str:
    """The key before the first table header, where TOML's top-level keys must be."""
    lines = text.splitlines(keepends=True)
    first_table = next((index for index, entry in enumerate(lines) if entry.lstrip().startswith("[")), len(lines))
    return "".join([*lines[:first_table], line + "\n", *lines[first_table:]])


_TOML_SHORT_ESCAPES = {"\\": "\\\\", '"': '\\"', "\n": "\\n", "\t": "\\t", "\r": "\\r"}


def _toml_string(text: str) -> str:
    """A TOML basic string: every control character escaped (a raw one is invalid TOML)."""
    escaped = "".join(
        _TOML_SHORT_ESCAPES.get(char) or (f"\\u{ord(char):04x}" if ord(char) < 0x20 or ord(char) == 0x7F else char)
        for char in text
    )
    return f'"{escaped}"'


# -- the command ---------------------------------------------------------------------------
def run_migrate(
    paths: tuple[str, ...],
    *,
    write: bool,
    domain: str | None,
    base: int,
    jobs: int | None,
    show_generated: bool = False,
    options: MigrateOptions | None = None,
) -> int:
    options = options or MigrateOptions()
    try:
        codes = migrated_codes(options.select, options.ignore)
    except ConfigError as error:
        return fail(str(error))
    if not codes:
        return fail(f"--select/--ignore leave no rule to migrate (migrate rewrites {', '.join(FIX_CODES)})")
    options = replace(options, codes=codes)
    try:
        resolver = ConfigResolver(CliOverrides(select=codes))
        files = discover(paths or (".",), resolver, force_exclude=False)
    except (ConfigError, PathNotFound) as error:
        return fail(str(error))
    config = resolver.config_for(resolver.cwd / "__init__.py")
    registry_path = config.registry or (config.root / DEFAULT_REGISTRY)
    try:
        existing_text = registry_path.read_text(encoding="utf-8") if registry_path.is_file() else None
        existing = load_registry(str(registry_path)) if existing_text is not None else None
    except (OSError, UnicodeDecodeError, RegistryError) as error:
        return fail(f"cannot extend the registry: {error}")
    unusable = next((p for p in existing.problems if p.path == ("helpers-module",)), None) if existing else None
    if existing is not None and unusable is not None:  # a `helpers-module` the helpers cannot have
        line = existing.positions.span(("helpers-module",)).line
        return fail(f"cannot extend the registry: {registry_path}:{line}: {unusable.message}")
    tasks = [
        FileTask(str(file.path), file.display, resolver.settings_for(file.path), not file.explicit) for file in files
    ]
    try:
        with shared_workers(jobs or default_jobs()) as workers:  # its runs parse each file once
            return _migrate(
                tasks, config.root, registry_path, existing_text, existing, write=write, domain=domain,
                base=base, jobs=jobs, show_generated=show_generated, options=options, workers=workers,
            )  # fmt: skip
    except RegistryError as error:  # the planned registry: a bug in mcplint, but say where
        return fail(str(error))
    except OSError as error:  # the scratch directory of the trial runs
        return fail(f"cannot plan the migration: {error.filename or 'a temporary file'}: {error.strerror or error}")


def _migrate(
    tasks: list[FileTask],
    root: Path,
    registry_path: Path,
    existing_text: str | None,
    existing: Registry | None,
    *,
    write: bool,
    domain: str | None,
    base: int,
    jobs: int | None,
    show_generated: bool,
    options: MigrateOptions,
    workers: Workers | None = None,
) -> int:
    before = run(tasks, jobs or default_jobs(), progress=progress_bar(quiet=False), workers=workers)
    sites = [f for f in before.findings if f.code in SITE_CODES and not _registry_fix(f) and f.error_template]

    try:  # where the built wheel ships the helpers, decided once, before anything is written
        helpers_module = _helpers_module(existing, sites, root)
    except NoPlace as error:
        return fail(f"cannot place the helpers module: {error}")
    unshipped = unshipped_reason(root, helpers_module) if existing is not None and existing.helpers_module else None
    if unshipped is not None:
        return fail(f"cannot place the helpers module: {registry_path}: {unshipped}")
    plan = plan_entries(sites, existing, registry_path, domain, base, root, helpers_module)
    namespace = project_namespace(root)
    framework = detect_framework(root)

    # Library modules (no MCP import, no handler) are never rewritten; their raises are mapped
    # in the tools that call them, where that is clearly right.
    boundary = plan_boundary(tasks, before, sites, framework)
    library = boundary.library_paths
    first = _Previous(before, _registries_of(tasks), {task.path: None for task in tasks}, before, _hashes(before))
    with tempfile.TemporaryDirectory() as scratch:
        trial = _fix_with(
            plan, existing_text, namespace, tasks, scratch, jobs,
            apply=False, library=library, previous=first, workers=workers,
        )  # fmt: skip
        # Keep only the entries a rewrite (or a mapping at the boundary) uses, numbered without gaps.
        used = {(f.path, f.line) for f in trial.fixed} | boundary.mapped
        used_sites = [f for f in sites if (f.path, f.line) in used]
        used_plan = plan_entries(used_sites, existing, registry_path, domain, base, root, helpers_module)
        final = trial
        if used_plan.entries != plan.entries:
            trial_registry = _planned_registry(plan, existing_text, namespace)
            plan = used_plan
            final = _fix_with(
                plan, existing_text, namespace, tasks, scratch, jobs,
                apply=False, library=library, previous=_previous(trial, trial_registry, tasks, library, before),
                workers=workers,
            )  # fmt: skip
        new_text = registry_text(plan, existing_text, namespace)
        registry = parse_registry(new_text, str(registry_path))
        helpers_file = helpers_path(registry, root)
        helpers_text = generate_helpers(registry, framework) if plan.entries or existing else None

    def call_for(site: Finding) -> tuple[str, str] | None:
        return _registry_call(registry, site)

    def rewritten(path: str) -> str:  # the handler module as the rules' fixes leave it
        result = final.results.get(path)
        return patched(boundary.handlers[path].text, result.diff if result is not None else "")

    line_lengths = {task.path: task.settings.line_length for task in tasks}

    def line_length(path: str) -> int:
        return line_lengths.get(path, DEFAULT_LINE_LENGTH)

    mapped = mapped_texts(boundary, call_for, plan.helpers_module, rewritten, line_length)
    final = _with_boundary(final, boundary, {site for _, _, sites in mapped.values() for site in sites})
    if helpers_text is not None and not replaceable(helpers_file):
        return fail(f"refusing to overwrite {helpers_file}: mcplint did not generate it (set another helpers-module)")
    by_path = {path: result.diff for path, result in final.results.items() if result.diff}
    by_path.update(
        {path: unified_diff(boundary.handlers[path].text, new, display) for path, (display, new, _) in mapped.items()}
    )
    diffs = sorted(by_path.values())
    report = build_report(before, final, plan, helpers_file, _reasons(trial), options.codes, diffs)
    if not plan.entries and not final.fixed:
        if (failed := _print_report(report, options)) is not None:
            return failed
        click.echo("mcplint: nothing to migrate", err=True)
        return 0
    if not write:
        if not options.stat:
            click.echo(unified_diff(existing_text or "", new_text, str(registry_path)), nl=False)
        if helpers_text is not None:
            current = helpers_file.read_text(encoding="utf-8") if helpers_file.is_file() else ""
            if show_generated and not options.stat:
                click.echo(unified_diff(current, helpers_text, str(helpers_file)), nl=False)
            elif current != helpers_text:
                click.echo(_generated_summary(helpers_file, current, helpers_text, registry), err=True)
        if not options.stat:
            click.echo("".join(diffs), nl=False)
        # After the diff, so it does not scroll away above it.
        if (failed := _print_report(report, options)) is not None:
            return failed
        click.echo("mcplint: dry run; `mcplint migrate --write` applies it", err=True)
        return 1
    if (failed := _print_report(report, options)) is not None:
        return failed
    # Both were verified above: the registry parsed, the helpers were generated from it.

    for target, text in ((registry_path, new_text), (helpers_file, helpers_text)):
        if text is None:
            continue
        try:
            write_text_atomically(target, text)
        except OSError as error:  # nothing of this file was written; the sites are not rewritten
            return fail(f"{target}: cannot write: {error.strerror or error}")
    applied = _fix_with(
        plan, new_text, namespace, tasks, None, jobs,
        apply=True, library=library, previous=_previous(final, registry, tasks, library, before), workers=workers,
    )  # fmt: skip
    for write_error in applied.write_errors:
        fail(write_error)
    # The tools' calls into library code, mapped in the files as the fixes left them.
    mapped = mapped_texts(
        boundary, call_for, plan.helpers_module, lambda path: Path(path).read_text(encoding="utf-8"), line_length
    )
    for path, (_, new, _) in mapped.items():
        try:
            write_text_atomically(Path(path), new)
        except OSError as error:
            fail(f"{path}: cannot write: {error.strerror or error}")
            return 2
    return 2 if applied.write_errors else 0


def _fix_with(
    plan: Plan,
    existing_text: str | None,
    namespace: str,
    tasks: list[FileTask],
    scratch: str | None,
    jobs: int | None,
    *,
    apply: bool,
    library: frozenset[str] = frozenset(),
    previous: _Previous | None = None,
    workers: Workers | None = None,
) -> RunResult:
    """Run the MCP001/MCP002 fixes (unsafe ones too) against the planned registry; the
    ``library`` modules are analysed (the project model needs them), never fixed.

    ``scratch``: the directory of a dry run's registry (None: the registry file is written
    already, ``existing_text`` is its text). ``previous``: the run before, over the same files;
    its analyses of the files the registry change cannot reach are taken again where the
    rounds meet them in the same project context (see ``_unchanged``)."""
    if scratch is None:
        registry = str(plan.registry_path)
        text = existing_text or ""
    else:
        registry = str(Path(scratch) / DEFAULT_REGISTRY)
        text = registry_text(plan, existing_text, namespace)
        Path(registry).write_text(text, encoding="utf-8")
    assigned = frozenset(entry.code for entry in plan.entries)
    fixing = [
        replace(task, settings=replace(task.settings, registry=registry, assigned_codes=assigned),
                fix_mode=None if task.display in library else "apply" if apply else "diff", unsafe_fixes=True)
        for task in tasks
    ]  # fmt: skip
    reuse = _unchanged(previous, parse_registry(text, registry)) if previous is not None else None
    if previous is None or apply:
        return run(fixing, jobs or default_jobs(), progress=progress_bar(quiet=False), reuse=reuse, workers=workers)
    return _warm_then_cold(fixing, previous.run, reuse, jobs or default_jobs(), workers)


def _warm_then_cold(
    tasks: list[FileTask],
    previous: RunResult,
    reuse: Callable[[FileTask], FileResult | None] | None,
    jobs: int,
    workers: Workers | None,
) -> RunResult:
    """A dry run of the fixes as a run from the empty contexts gives it, doing less: the rounds
    of each project start from the contexts the run before settled in (only the fixes differ
    between the runs, so a project whose fixed files keep their cross-module facts settles in
    one round, its files analysed once), unless the run before did not settle there (cut off
    by MAX_ROUNDS), or an analysis of the warm rounds lost a fact whose contribution to some
    context is still there when they end (`_lost_facts`: a call cycle across modules may keep
    alive what a run from the empty contexts would not derive): those projects run again
    from the empty contexts, taking the warm rounds' analyses where they meet the same
    context. Projects never mix in a run (`ModuleIndex`), so each is decided alone. Not for
    --write: there each round writes what it fixes, and the next fixes the written text."""
    project_of = _projects(tasks)
    cold = _unsettled(previous, project_of)
    warm_tasks = [task for task in tasks if project_of[task.path] not in cold]
    warm = None
    if warm_tasks:
        warm = run(
            warm_tasks, jobs, progress=progress_bar(quiet=False), start=previous.contexts, reuse=reuse, workers=workers
        )
        cold |= _unsettled(warm, project_of) | {project_of[path] for path in _lost_facts(warm, previous, project_of)}
    cold_tasks = [task for task in tasks if project_of[task.path] in cold]
    if not cold_tasks and warm is not None:
        return warm
    again = _memo(warm, reuse) if warm is not None else reuse
    cold_run = run(cold_tasks, jobs, progress=progress_bar(quiet=False), reuse=again, workers=workers)
    if warm is None:
        return cold_run
    return _merged(
        tasks, [(warm, project_of, lambda project: project not in cold), (cold_run, project_of, cold.__contains__)]
    )


def _projects(tasks: list[FileTask]) -> dict[str, str | None]:
    """Each task's path -> the root of its project (None: a file without a module name)."""
    from mcplint.engine.join import initial_contexts
    from mcplint.engine.module_index import ModuleIndex

    index = ModuleIndex(initial_contexts([task.path for task in tasks]))
    return {task.path: index.project_of(task.path) for task in tasks}


def _unsettled(result: RunResult, project_of: dict[str, str | None]) -> set[str | None]:
    """The projects whose files the join of the run's last analyses would give other contexts
    (its rounds were cut off by MAX_ROUNDS)."""
    if result.settled:
        return set()
    from mcplint.engine.join import initial_contexts, join
    from mcplint.engine.module_index import ModuleIndex

    contexts = initial_contexts(list(result.results))
    wanted = join(result.results, contexts, ModuleIndex(contexts))
    return {project_of[path] for path, context in wanted.items() if context != result.contexts.get(path)}


def _merged(
    tasks: list[FileTask],
    parts: list[tuple[RunResult, dict[str, str | None], Callable[[str | None], bool]]],
) -> RunResult:
    """One run's result from the runs of disjoint sets of projects: each file's from the run
    whose projects hold it."""
    from mcplint.engine.runner import summarise

    results: dict[str, FileResult] = {}
    fixed: dict[str, list[Finding]] = {}
    contexts = {}
    analyses = {}
    for part, project_of, holds in parts:
        for path, result in part.results.items():
            if not holds(project_of[path]):
                continue
            results[path] = result
            contexts[path] = part.contexts[path]
            analyses[path] = part.analyses.get(path, {})
            fixed[path] = [finding for analysis in analyses[path].values() for finding in analysis.fixed]
    return summarise(tasks, results, fixed, contexts, analyses, all(part.settled for part, _, _ in parts))


def _lost_facts(warm: RunResult, previous: RunResult, project_of: dict[str, str | None] | None = None) -> set[str]:
    """The files the warm run analysed (not took from the run before) whose analysis lost a
    cross-module fact the file had at the end of the run before, where what that fact gave
    some file's context in the run before is still in that file's context at the end of the
    warm rounds (`_still_given`): something else holds it there, maybe only a call cycle
    across modules that the lost fact began. A fact the join never reads for a context
    (`_read_by_join`: a call of `fastmcp.exceptions.ToolError` that a fix replaced) is not
    looked at; what gave a changed text helper is gone once every importer has the new one.
    A name resolves only within its importer's project (`ModuleIndex`), so only the files of
    the projects with a loss are looked at (``project_of``: each path's project; None: all)."""
    from mcplint.engine.join import NameResolver, initial_contexts
    from mcplint.engine.module_index import ModuleIndex
    from mcplint.engine.result import JOIN_FIELDS

    losses: dict[str, list[tuple[str, Any, Any]]] = {}
    for path, by_context in warm.analyses.items():
        before = previous.results.get(path)
        for result in by_context.values():
            if result is before:
                continue
            if before is None:
                losses[path] = [("", None, None)]  # nothing to compare with: lost, to be safe
                continue
            for name in JOIN_FIELDS:
                if _lost(getattr(before, name), getattr(result, name)):
                    losses.setdefault(path, []).append((name, getattr(before, name), getattr(result, name)))
    if not losses:
        return set()
    contexts = initial_contexts(list(previous.results))
    index = ModuleIndex(contexts)
    if project_of is not None:
        lossy = {project_of.get(path) for path in losses}
        concerned = {path for path in previous.results if path not in project_of or project_of[path] in lossy}
    else:
        concerned = set(previous.results)
    referenced: dict[tuple[str, str], set[tuple[str, str]]] = {}  # (file, key) -> (importer, name) resolving to it
    landed: set[tuple[str, str]] = set()  # (file, rest of the name) a name of another file lands in
    resolvers = []
    merged = {**previous.results, **warm.results}
    for results in (
        {path: result for path, result in previous.results.items() if path in concerned},
        {path: result for path, result in merged.items() if path in concerned or path not in previous.results},
    ):
        names = NameResolver(results, contexts, index)
        resolvers.append(names)
        for path, result in results.items():
            for name in (*result.imported_names, *result.outgoing_returns, *result.outgoing_calls):
                found = names.resolve(name, path)
                if found is not None and found[0] != path:
                    referenced.setdefault(found, set()).add((path, name))
            for name in _names_of(result):
                found = index.locate(name, path)
                if found is not None and found[0] != path:
                    landed.add(found)
    given = _Given(resolvers[0], previous.contexts, warm.contexts, referenced)
    return {
        path
        for path, lost in losses.items()
        if any(
            _read_by_join(name, old, new, path, index, set(referenced), landed) and given.still(name, old, new, path)
            for name, old, new in lost
        )
    }


# A file's facts others read, and the fields of the reader's context they give.
_OWN_TO_CONTEXT = {
    "module_servers": "imported_servers",
    "server_classes": "imported_server_classes",
    "server_factories": "imported_server_factories",
    "registrars": "imported_registrars",
    "error_helpers": "imported_error_helpers",
    "text_helpers": "imported_text_helpers",
    "raising_functions": "imported_raisers",
    "unmasked_classes": "imported_unmasked_classes",
    "registry_decorators": "registry_decorators",
}
_ENTRIES = {
    "outgoing_calls": "entry_points",
    "outgoing_returns": "return_entry_points",
    "local_reach_calls": "entry_points",
    "local_reach_returns": "return_entry_points",
}


@dataclass
class _Given:
    """What a lost fact gave the contexts of the run before (as the join derives it), looked
    up in the contexts the warm rounds ended with."""

    names: Any  # the join's NameResolver over the run before's results
    before: dict[str, Any]  # path -> ProjectContext at the end of the run before
    after: dict[str, Any]  # ... at the end of the warm rounds
    referenced: dict[tuple[str, str], set[tuple[str, str]]]

    def still(self, name: str, old: Any, new: Any, path: str) -> bool:
        """Whether something the lost part of ``old`` (field ``name`` of ``path``) gave a
        context in the run before is in that context still; a fact not modelled here: yes."""
        if name in ("outgoing_calls", "outgoing_returns"):
            return any(
                self._entry_kept(target, path, _ENTRIES[name], label, kind, state)
                for target, handlers in old.items()
                for label, kind, state in handlers
                if [label, kind, state] not in [list(h) for h in new.get(target, ())]
            )
        if name in ("local_reach_calls", "local_reach_returns"):
            field_name = _ENTRIES[name]
            entries = getattr(self.before.get(path), field_name, ())
            return any(
                self._entry_kept(target, path, field_name, label, kind, state)
                for function, targets in old.items()
                for target in targets
                if target not in new.get(function, ())
                for key, label, kind, state in entries
                if key == function or (key.endswith(".*") and function.startswith(key[:-1]))
            )
        if name == "imported_names":
            dropped = {target for target in old if target not in new}
            return any(
                item in getattr(self.after.get(path), field_name, ())
                for field_name in _OWN_TO_CONTEXT.values()
                for item in getattr(self.before.get(path), field_name, ())
                if item[0] in dropped
            )
        if name in _OWN_TO_CONTEXT:
            field_name = _OWN_TO_CONTEXT[name]
            gone = [key for key in old if key not in new or (isinstance(old, dict) and old[key] != new[key])]
            return any(
                item in getattr(self.after.get(reader), field_name, ())
                for key in gone
                for reader, imported in self.referenced.get((path, key), ())
                for item in getattr(self.before.get(reader), field_name, ())
                if item[0] == imported
            )
        return True

    def _entry_kept(self, target: str, path: str, field_name: str, label: str, kind: str, state: Any) -> bool:
        if "|" in target:
            return True  # a choice by resolution order: not modelled
        found = self.names.resolve(target.removesuffix(".<locals>.*"), path)
        if found is None:
            return False
        key = found[1] + (".<locals>.*" if target.endswith(".<locals>.*") else "")
        return (key, label, kind, tuple(state)) in getattr(self.after.get(found[0]), field_name, ())


def _names_of(result: FileResult) -> Iterator[str]:
    """Every qualified name the join may resolve from the file."""
    yield from result.imported_names
    for name in _TARGET_KEYS:
        yield from getattr(result, name)
    for name in _TARGET_LISTS:
        for targets in getattr(result, name).values():
            yield from (target.removesuffix(".<locals>.*") for target in targets)
    yield from (entry[0].removesuffix("[]") for entry in result.outgoing_registrations)


# What the join reads of a file's facts (engine/join.py): qualified names it resolves from
# the file (an outgoing call, an import: read when they land in a module of the project) ...
_TARGET_KEYS = ("outgoing_calls", "outgoing_returns", "outgoing_servers", "outgoing_arguments", "outgoing_instances")
_TARGET_LISTS = ("local_reach_calls", "local_reach_returns")  # function -> targets
# ... the file's own definitions, read when another module's import or call resolves to them ...
_OWN_KEYS = (
    "module_servers", "server_classes", "server_factories", "registrars", "error_helpers", "text_helpers",
    "raising_functions", "unmasked_classes", "registry_decorators",
)  # fmt: skip
# ... what resolving a name through the file follows (read when a name lands in it) ...
_RESOLVING = ("exports", "star_imports", "defined_names")
# ... and nothing of these (`mcplint handlers`, the run's blind spots). `analysed` is read, but
# what a stale one can keep is a module analysed that a cold run would only syntax-check (two
# helper modules importing each other): an analysis every run made before it was read, whose
# findings and summaries are its own text's.
_UNREAD = ("handlers", "imports_server_framework", "reached", "analysed", "left_out_heads")


def _read_by_join(
    name: str,
    old: Any,
    new: Any,
    path: str,
    index: Any,
    referenced: set[tuple[str, str]],
    landed: set[tuple[str, str]],
) -> bool:
    """Whether the join may read what ``old`` has and ``new`` has not (field ``name`` of the
    file ``path``) for some file's context. Anything else (the project-wide registration
    facts, a field this does not know) counts as read."""

    def lands(target: str) -> bool:
        return index.locate(target.removesuffix(".<locals>.*"), path) is not None

    if name in _UNREAD:
        return False
    if name in _TARGET_KEYS:
        return any(lands(key) for key, value in old.items() if key not in new or _lost(value, new[key]))
    if name in _TARGET_LISTS:
        return any(lands(target) for key, value in old.items() for target in value if target not in new.get(key, ()))
    if name == "imported_names":
        return any(lands(target) for target in old if target not in new)
    if name == "outgoing_registrations":
        return any(lands(entry[0].removesuffix("[]")) for entry in old if entry not in new)
    if name in _OWN_KEYS:
        gone = [key for key in old if key not in new or (isinstance(old, dict) and old[key] != new[key])]
        return any((path, key) in referenced for key in gone)
    if name == "star_imports":
        return any(file == path for file, _ in landed)
    if name in _RESOLVING:  # exports, defined_names: a name resolved through the file that begins so
        gone = [key for key in old if key not in new]
        return any(file == path and _begins(rest, key) for file, rest in landed for key in gone)
    return True


def _begins(name: str, key: str) -> bool:
    """``name`` is ``key`` or names something of it (`Class` begins `Class.method`; `Class.m`
    begins `Class.m.<locals>`)."""
    return name == key or name.startswith(key + ".") or key.startswith(name + ".")


def _lost(old: Any, new: Any) -> bool:
    """``old`` has something ``new`` has not (a key, an item of a key's list, an item)."""
    if old == new:
        return False
    if isinstance(old, dict) and isinstance(new, dict):
        return any(key not in new or _lost(value, new[key]) for key, value in old.items())
    if isinstance(old, list) and isinstance(new, list):
        return any(item not in new for item in old)
    return True


def _memo(
    warm: RunResult, reuse: Callable[[FileTask], FileResult | None] | None
) -> Callable[[FileTask], FileResult | None]:
    """``reuse``, and the warm run's analysis of a task in the same project context (the same
    task, file and registry: the analysis would be the same again)."""

    def again(task: FileTask) -> FileResult | None:
        found = warm.analyses.get(task.path, {}).get(task.project)
        if found is not None:
            return found
        return reuse(task) if reuse is not None else None

    return again


def _registries_of(tasks: list[FileTask]) -> tuple[Registry | None, ...]:
    """The registries the tasks' settings configure (one, unless a subproject has its own)."""
    from mcplint.rules.base import configured_registry

    return tuple(configured_registry(path) for path in sorted({task.settings.registry or "" for task in tasks}) if path)


def _planned_registry(plan: Plan, existing_text: str | None, namespace: str) -> Registry:
    return parse_registry(registry_text(plan, existing_text, namespace), str(plan.registry_path))


@dataclass(frozen=True)
class _Previous:
    """The run of a migration before this one, over the same files: what `_fix_with` may reuse."""

    run: RunResult
    registries: tuple[Registry | None, ...]  # what its tasks' settings configured
    modes: dict[str, str | None]  # path -> its task's fix_mode
    first: RunResult  # the migration's first run (no fix): every finding of the original files
    hashes: dict[str, str]  # path -> sha256 of the bytes the first run analysed


def _previous(
    run: RunResult, registry: Registry, tasks: list[FileTask], library: frozenset[str], first: RunResult
) -> _Previous:
    """A dry run of `_fix_with` (its ``library`` modules only analysed) as the previous run of the next."""
    modes = {task.path: None if task.display in library else "diff" for task in tasks}
    return _Previous(run, (registry,), modes, first, _hashes(first))


def _hashes(first: RunResult) -> dict[str, str]:
    return {path: result.content_hash for path, result in first.results.items() if result.content_hash}


def _unchanged(previous: _Previous, registry: Registry) -> Callable[[FileTask], FileResult | None]:
    """``run``'s ``reuse``: the previous run's analysis of a file in the same project context,
    where this run's would be the same. Between the runs of a migration only the registry
    changes (and, with --write, the files the fixes write); a registry matters to a file's
    analysis only through
    - the fixes of its findings: the entry a finding's message matches (`registry.match`: the
      same constant text, case and spacing aside) or `default-symbol` names. A file with a
      finding of a rule migrate fixes is taken again only from a run in the same fix mode, and,
      if the run fixes it, only if no message of its findings has the words of an entry that
      differs between the registries (`_same_fixes`). An entry only the previous registry has,
      whose words no entry of this one has (the trial's entry for a site no rewrite used, which
      the final registry drops), does not count: no entry of this registry matches those
      sites, so the rules offer them no registry fix; the previous run offered them none that
      it applied either, so theirs is the same fix (none, or the rule's own fallback form,
      which did not suit there and still does not) unless the previous run dropped the file's
      fixes or stopped with a fix still offered (`_dropped_fixes_kept`): then it is analysed
      again;
    - the registry helpers' calls, whose text is safe to send (MCP006): a file that names a
      helper only one registry has, or imports from (or is) a helpers module only one has, is
      analysed again.
    The file must still hold the bytes the migration's first run analysed."""
    old, new = previous.registries, (registry,)
    modules = _differing(lambda found: {found.helpers_module} if found is not None else {None}, old, new) - {None}
    names = _differing(lambda found: {helper_name(domain) for domain in found.domains} if found else set(), old, new)
    entries = _differing(_entry_keys, old, new)
    symbols = {entry.symbol for _, entry in entries}
    kept = set().union(*(_entry_keys(found) for found in new))
    now = {_words(entry.message) for _, entry in kept if entry.message is not None}
    dropped = {
        _words(entry.message) for key in entries if key not in kept and (entry := key[1]).message is not None
    } - now  # the words of entries only the previous registry has, and no entry of this one
    changed = {_words(entry.message) for _, entry in entries if entry.message is not None} - dropped
    mentions = re.compile(rb"\b(?:" + b"|".join(re.escape(name.encode()) for name in sorted(names)) + rb")\b")
    # (path, its imports) -> the file's bytes are the first run's, and no helper difference shows
    blind: dict[tuple[str, tuple[str, ...]], bool] = {}

    def reuse(task: FileTask) -> FileResult | None:
        result = previous.run.analyses.get(task.path, {}).get(task.project)
        if result is None or result.internal_error or result.write_error:
            return None
        if result.fixed or result.diff or any(f.code in FIX_CODES for f in result.findings):
            if previous.modes.get(task.path) != task.fix_mode or task.settings.default_symbol in symbols:
                return None
            if task.fix_mode is not None and not _same_fixes(previous, task, result, changed):
                return None
            if task.fix_mode is not None and dropped and not _dropped_fixes_kept(previous, task, result, dropped):
                return None
        key = (task.path, tuple(result.imported_names))
        if key not in blind:
            digest = previous.hashes.get(task.path)
            blind[key] = _registry_blind(task, result, digest, modules, mentions if names else None)
        return result if blind[key] else None

    return reuse


def _same_fixes(previous: _Previous, task: FileTask, result: FileResult, changed: set[tuple[str, ...]]) -> bool:
    """No message of the file's findings (the first run's in that context, the previous run's,
    those it fixed) has the words of an entry that differs between the registries. Only a file
    the run fixes asks: a library module's (analysed, never fixed) findings differ between the
    registries only in the fixes offered and the reasons for none, which nothing reads (the
    migration gives its sites their reasons itself, `_with_boundary`)."""
    first = previous.first.analyses.get(task.path, {}).get(task.project)
    if first is None:
        return False
    found = (*first.findings, *result.findings, *result.fixed)
    return not any(f.error_template is not None and _words(f.error_template) in changed for f in found)


def _dropped_fixes_kept(previous: _Previous, task: FileTask, result: FileResult, dropped: set[tuple[str, ...]]) -> bool:
    """The previous run's fix of the file left every finding of a dropped entry's words the
    first run had (it fixed none: an entry is dropped when no site of its message was fixed at
    the line the first run found it, and a later pass's fix is at another line; and it made
    none moot, which the run without the entry may not), none of them with a fix still
    offered, none of a rule with a fix of its own to offer where no registry entry matches
    (its forms differ then, and so may the reason none suits); and it dropped no fix for a
    failed verification (without a dropped entry's sites' fixes another outcome may verify)."""

    def of_dropped(finding: Finding) -> bool:
        return finding.error_template is not None and _words(finding.error_template) in dropped

    first = previous.first.analyses.get(task.path, {}).get(task.project)
    if first is None:
        return False
    left = [f for f in result.findings if of_dropped(f)]
    if len(left) != sum(of_dropped(f) for f in first.findings):
        return False
    if not left:
        return True
    if result.warnings:  # a failed verification ("... no fix applied"), or anything else: to be safe
        return False
    return not any(f.fix is not None or f.code in _OWN_FALLBACK for f in left)


# Rules whose registry fix falls back to a fix of their own (MCP005's raise, MCP006's sanitised
# text): without a matching entry a site gets that form alone, and another reason if it does
# not suit. MCP001, MCP002 and MCP007 offer nothing then (their reason: the trial's, `_reasons`).
_OWN_FALLBACK = frozenset({"MCP005", "MCP006"})


def _registry_blind(
    task: FileTask, result: FileResult, digest: str | None, modules: set[str], mentions: re.Pattern[bytes] | None
) -> bool:
    try:
        data = Path(task.path).read_bytes()
    except OSError:
        return False
    if digest is None or hashlib.sha256(data).hexdigest() != digest:
        return False
    if mentions is not None and mentions.search(data):
        return False
    own = [task.project.module] if task.project.module else []
    return not any(_may_name(module, name) for module in modules for name in (*result.imported_names, *own))


def _differing(
    of: Callable[[Registry | None], set[Any]], old: Iterable[Registry | None], new: Iterable[Registry | None]
) -> set[Any]:
    """What ``of`` gives for some of the registries and not for all."""
    found = [of(registry) for registry in (*old, *new)]
    return set().union(*found) - set.intersection(*found)


def _entry_keys(registry: Registry | None) -> set[tuple[object, ErrorEntry]]:
    """A registry's entries as a fix reads them: with the domain's helper and defaults; of the
    code only whether there is one (a migration renumbers its entries; a fix names the symbol)."""
    if registry is None:
        return set()
    keys: set[tuple[object, ErrorEntry]] = set()
    for domain in registry.domains:
        defaults = (helper_name(domain), domain.recovery, domain.hints, domain.retry_after_ms, domain.user_message)
        keys.update((defaults, replace(entry, code=0 if entry.code is not None else None)) for entry in domain.errors)
    return keys


_MESSAGE_WORD = re.compile(r"\w+")
_MESSAGE_HOLE = re.compile(r"\{\{|\}\}|\{\w*\}")


def _words(message: str) -> tuple[str, ...]:
    """The words of a message's constant text: equal for a message and an entry it matches."""
    return tuple(word.casefold() for word in _MESSAGE_WORD.findall(_MESSAGE_HOLE.sub(" ", message)))


def _may_name(helpers_module: str, qualified: str) -> bool:
    """A name imported as ``qualified`` (absolute or relative, maybe called through its
    attributes) may stand for something of ``helpers_module``: the test of
    `exception_flow._from_helpers_module`, made for every call the name can begin."""
    name = qualified.lstrip(".")
    if not name:
        return False
    dotted = f".{helpers_module}."
    parent = name.rpartition(".")[0]
    return f".{name}." in dotted or (bool(parent) and (parent == helpers_module or dotted.endswith(f".{parent}.")))


_SiteKey = tuple[str, str, str, str]


def _site_key(finding: Finding) -> _SiteKey:
    """A site across runs whose rewrites moved its line: its baseline fingerprint's parts."""
    return finding.path, finding.code, finding.context, finding.snippet_digest


def _reasons(trial: RunResult) -> dict[_SiteKey, str]:
    """Why each site the trial (with an entry for every message) could not rewrite was left:
    the final run's registry has no entry for those sites any more, so it cannot tell."""
    return {_site_key(f): f.unfixed_reason for f in trial.findings if f.unfixed_reason}


def build_report(
    before: RunResult,
    final: RunResult,
    plan: Plan,
    helpers: Path,
    reasons: dict[_SiteKey, str],
    codes: tuple[str, ...] = FIX_CODES,
    diffs: list[str] | None = None,  # the files' diffs (default: the final run's)
) -> MigrationReport:
    found = Counter(f.code for f in before.findings if f.code in codes)
    left = sorted(f for f in final.findings if f.code in codes)
    remaining = Counter(f.code for f in left)
    domains: dict[str, list[NewEntry]] = {}
    for entry in plan.entries:
        domains.setdefault(entry.domain, []).append(entry)
    notes = []
    if plan.entries and "." not in plan.helpers_module:
        notes.append(
            f"`{plan.helpers_module}` is a top-level module: list it in your packaging "
            "(setuptools `py-modules`, hatch `only-include`, ...) so an installed server has it"
        )
    return MigrationReport(
        rules=[RuleCount(code, found[code], remaining[code]) for code in FIX_CODES if code in codes],
        domains=[
            Domain(name, plan.new_domains.get(name), [Symbol(e.symbol, e.code, e.message) for e in entries])
            for name, entries in domains.items()
        ],
        # Each site once: a dry run's rounds fix the file's original text again in every
        # project context they analyse it in, and the run lists every round's fixes.
        files=file_changes([f.path for f in dict.fromkeys(final.fixed)], final.diffs if diffs is None else diffs),
        left=[
            LeftSite(f.path, f.line, f.code, f.unfixed_reason or reasons.get(_site_key(f)) or _reason(f)) for f in left
        ],
        registry=str(plan.registry_path),
        helpers=str(helpers),
        notes=notes,
    )


def _print_report(report: MigrationReport, options: MigrateOptions) -> int | None:
    """The summary on stderr, and the markdown file if asked; an exit code if that cannot be written."""
    for line in text_lines(report, stat=options.stat):
        click.echo(line, err=True)
    if options.report_file is None:
        return None
    try:
        write_text_atomically(Path(options.report_file), markdown(report))
    except OSError as error:
        return fail(f"{options.report_file}: cannot write the report: {error.strerror or error}")
    return None


def _generated_summary(path: Path, current: str, generated: str, registry: Registry) -> str:
    """One line instead of the generated module's diff (`--show-generated` shows it)."""
    symbols = sum(1 for entry in registry.errors if entry.status != "retired")
    state = "new" if not current else "regenerated"
    framework = re.search(r"^# framework: (\w+)", generated, re.MULTILINE)
    return (
        f"helpers: {path} ({state}, {len(generated.splitlines())} lines, {symbols} symbols, "
        f"framework {framework.group(1) if framework else '?'}; --show-generated diffs it)"
    )


def _registry_fix(finding: Finding) -> bool:
    """The finding already has a fix into a registry helper (one that imports it)."""
    return finding.fix is not None and imports_a_helper(finding.fix.imports)


def _reason(finding: Finding) -> str:
    """Why a site is left, when its rule had no fix to offer there at all."""
    if finding.code == "MCP006":
        return "traceback text, or exception text sent where no registry error fits (a notification, print)"
    if finding.code == "MCP005":
        return "the clause falls through to an empty value returned later"
    if finding.code == "MCP008":
        return "its rule has no fix for this site"
    if not finding.error_template:
        return "the message is not a string, an f-string or the caught exception"
    if finding.code == "MCP001":
        return "a payload in a local that is returned elsewhere too (it may hold a success)"
    return "no registry entry matches its message uniquely"


def _registry_call(registry: Registry, site: Finding) -> tuple[str, str] | None:
    """(helper, symbol) of the registry entry a site's message is."""

    shape = _shape(_sentence(site.error_template or ""))
    for domain in registry.domains:
        for entry in domain.errors:
            if entry.status != "retired" and _shape(entry.message or "") == shape:
                return helper_name(domain), entry.symbol
    return None


def _with_boundary(final: RunResult, boundary: Boundary, mapped: set[tuple[str, int]]) -> RunResult:
    """The final run's findings as the migration leaves them: library sites mapped at the
    boundary resolved, the other library sites left with the reason."""
    findings = []
    for finding in final.findings:
        key = (finding.path, finding.line)
        if key in mapped:
            continue
        if finding.path in boundary.library_paths and finding.code in SITE_CODES:
            finding = replace(finding, unfixed_reason=boundary.left.get(key, LIBRARY))
        findings.append(finding)
    return replace(final, findings=findings)
