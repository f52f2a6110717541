"""Code actions, hover and the registry's diagnostics.

- each finding's fix, titled safe or unsafe as `--fix` / `--unsafe-fixes` tell them apart,
  with the imports it needs (the CLI's own edit functions);
- "Suppress MCP00N on this line": the `# mcplint: ignore[...]` directive `--add-noqa`
  writes;
- ``source.fixAll.mcplint``: the file's safe fixes, verified as `--fix` verifies them
  (``fixer.fix_text``: the result parses, exactly the fixed findings are gone);
- hover on a finding: its rule's summary and "What it does";
- `mcp-errors.toml` (or the registry the config names): its REG findings as diagnostics.

Edits are computed on the text the diagnostics were computed from; a request on a newer
version of the document gets no actions (the next diagnostics bring them).
"""

from __future__ import annotations

from pathlib import Path

from lsprotocol import types

from mcplint.analysis.project import NO_PROJECT
from mcplint.catalogue import code_doc
from mcplint.engine.positions import LineIndex
from mcplint.finding import SAFE, Finding
from mcplint.lsp.core import McplintServer, Published
from mcplint.lsp.diagnostics import RULE_DOCS, SOURCE, Positions, to_diagnostic, to_diagnostics
from mcplint.registry.model import RegistryError

# Imports inside functions: the fixer (LibCST's codemods, about 280 ms) and the registry checks are
# imported when an action or a registry is asked for, not when the server starts.

FIX_ALL_KIND = "source.fixAll.mcplint"


async def code_actions(server: McplintServer, params: types.CodeActionParams) -> list[types.CodeAction]:
    uri = params.text_document.uri
    published = _current(server, uri)
    if published is None or published.model is None:
        return []
    positions = Positions(published.text, server.workspace.get_text_document(uri).position_codec.client_num_units)
    # Fixes parse and rewrite the module: off the event loop, in turn with the analyses.
    return await server.in_analysis_thread(_actions, uri, published, positions, params.range, params.context.only)


def _actions(
    uri: str, published: Published, positions: Positions, asked: types.Range, only: list[str] | None
) -> list[types.CodeAction]:
    found: list[types.CodeAction] = []
    if _wants(types.CodeActionKind.QuickFix, only):
        for finding in published.findings:
            where = positions.range(finding.line, finding.column, finding.end_line, finding.end_column)
            if not _overlaps(where, asked):
                continue
            diagnostic = to_diagnostic(finding, positions)
            for action in (
                _fix_action(uri, published.text, finding, positions, diagnostic),
                _suppress_action(uri, published.text, finding, positions, diagnostic),
            ):
                if action is not None:
                    found.append(action)
    if _wants(FIX_ALL_KIND, only) and any(
        f.fix is not None and f.fix.applicability == SAFE for f in published.findings
    ):
        new_text = _fixed_text(published)
        if new_text is not None and new_text != published.text:
            found.append(
                types.CodeAction(
                    title="mcplint: apply every safe fix",
                    kind=FIX_ALL_KIND,
                    edit=_workspace_edit(uri, published.text, new_text, positions),
                )
            )
    return found


def _current(server: McplintServer, uri: str) -> Published | None:
    """The document's findings, if they were computed from its current text."""
    published = server.published.get(uri)
    document = server.workspace.text_documents.get(uri)
    if published is None or document is None or document.source != published.text:
        return None
    return published


def _wants(kind: str, only: list[str] | None) -> bool:
    """Whether the client asks for actions of ``kind``: it asked for every kind, or for
    ``kind`` or a kind above it (`source` and `source.fixAll` include `source.fixAll.mcplint`)."""
    return not only or any(kind == asked or kind.startswith(f"{asked}.") for asked in only)


def _overlaps(found: types.Range, asked: types.Range) -> bool:
    start = (found.start.line, found.start.character)
    end = (found.end.line, found.end.character)
    return start <= (asked.end.line, asked.end.character) and (asked.start.line, asked.start.character) <= end


def _fix_action(
    uri: str, text: str, finding: Finding, positions: Positions, diagnostic: types.Diagnostic
) -> types.CodeAction | None:
    if finding.fix is None:
        return None
    from mcplint.analysis.loggers import MODULE_LOGGER_IMPORT
    from mcplint.engine.fixer import add_imports, apply_edits, parses, with_module_logger, without_imports_made_unused

    fixed, _ = apply_edits(text, [finding])
    imports = sorted(finding.fix.imports)
    if imports:
        fixed = without_imports_made_unused(text, add_imports(fixed, imports))
    if MODULE_LOGGER_IMPORT in imports:
        fixed = with_module_logger(fixed)
    if fixed == text or not parses(fixed):
        return None
    safety = "safe" if finding.fix.applicability == SAFE else "unsafe"
    return types.CodeAction(
        title=f"Fix {finding.code}: {finding.fix.message} ({safety} fix)",
        kind=types.CodeActionKind.QuickFix,
        diagnostics=[diagnostic],
        is_preferred=finding.fix.applicability == SAFE,
        edit=_workspace_edit(uri, text, fixed, positions),
    )


def _suppress_action(
    uri: str, text: str, finding: Finding, positions: Positions, diagnostic: types.Diagnostic
) -> types.CodeAction | None:
    from mcplint.add_noqa import NOT_SUPPRESSIBLE, with_directives

    if finding.code in NOT_SUPPRESSIBLE:
        return None
    added = with_directives(text, finding.path, [finding])
    if added.text is None or added.text == text:
        return None
    return types.CodeAction(
        title=f"Suppress {finding.code} on this line",
        kind=types.CodeActionKind.QuickFix,
        diagnostics=[diagnostic],
        edit=_workspace_edit(uri, text, added.text, positions),
    )


def _fixed_text(published: Published) -> str | None:
    """The file's text with its safe fixes applied (and verified), as `mcplint check --fix`."""
    from mcplint.engine.fixer import fix_text

    model, path = published.model, published.path
    assert model is not None
    settings = model.settings_for(path)
    project = model.last.contexts.get(path, NO_PROJECT)
    outcome = fix_text(published.text, model.display(path), settings, unsafe=False, project=project)
    return outcome.text if outcome.failure is None else None


def _workspace_edit(uri: str, before: str, after: str, positions: Positions) -> types.WorkspaceEdit:
    """One edit replacing only the span where ``before`` and ``after`` differ."""
    start = 0
    limit = min(len(before), len(after))
    while start < limit and before[start] == after[start]:
        start += 1
    end_before, end_after = len(before), len(after)
    while end_before > start and end_after > start and before[end_before - 1] == after[end_after - 1]:
        end_before -= 1
        end_after -= 1
    lines = LineIndex(before)
    first = positions.position(*lines.position(start))
    last = positions.position(*lines.position(end_before))
    edit = types.TextEdit(range=types.Range(start=first, end=last), new_text=after[start:end_after])
    return types.WorkspaceEdit(changes={uri: [edit]})


# -- hover --------------------------------------------------------------------------------
def hover(server: McplintServer, params: types.HoverParams) -> types.Hover | None:
    uri = params.text_document.uri
    published = _current(server, uri)
    if published is None:
        return None
    positions = Positions(published.text, server.workspace.get_text_document(uri).position_codec.client_num_units)
    here = types.Range(start=params.position, end=params.position)
    for finding in published.findings:
        found = positions.range(finding.line, finding.column, finding.end_line, finding.end_column)
        if not _overlaps(found, here):
            continue
        document = code_doc(finding.code)
        if document is None:
            continue
        parts = [f"**{document.code}** `{document.name}`: {document.summary}"]
        what = document.sections.get("What it does")
        if what:
            parts.append(what)
        parts.append(f"[{document.code} documentation]({RULE_DOCS.format(code=document.code)})")
        return types.Hover(
            contents=types.MarkupContent(kind=types.MarkupKind.Markdown, value="\n\n".join(parts)), range=found
        )
    return None


# -- the registry ---------------------------------------------------------------------------
def is_registry(server: McplintServer, path: Path) -> bool:
    """`mcp-errors.toml`, or the file the folder's config names as its registry."""
    from mcplint.config import DEFAULT_REGISTRY

    if path.name == DEFAULT_REGISTRY:
        return True
    if path.suffix != ".toml":
        return False
    try:
        configured = server.model_for(path).resolver.config_for(path).registry
    except Exception:  # a broken config: the Python files' analysis reports it
        return False
    return configured is not None and configured.absolute() == path.absolute()


def publish_registry(server: McplintServer, uri: str, path: Path) -> None:
    """The REG findings of the registry's unsaved text (those the folder's config enables)."""
    from mcplint.registry.checks import registry_findings
    from mcplint.registry.load import parse_registry

    document = server.workspace.get_text_document(uri)
    text = document.source
    positions = Positions(text, document.position_codec.client_num_units)
    try:
        registry = parse_registry(text, str(path.absolute()))
        findings = registry_findings(registry)
        enabled = server.model_for(path).settings_for(str(path.absolute())).codes
        findings = [finding for finding in findings if finding.code in enabled]
    except RegistryError as error:  # not TOML, an unknown schema: nothing else can be checked
        diagnostic = types.Diagnostic(
            range=positions.range(error.line, 1, error.line + 1, 1),
            severity=types.DiagnosticSeverity.Error,
            source=SOURCE,
            message=error.message,
        )
        server.text_document_publish_diagnostics(
            types.PublishDiagnosticsParams(uri=uri, diagnostics=[diagnostic], version=document.version)
        )
        return
    except Exception as error:  # a broken config: reported as the Python files' analysis reports it
        server.report(error)
        return
    server.published[uri] = Published(document.version, text, findings, None, str(path.absolute()))
    server.text_document_publish_diagnostics(
        types.PublishDiagnosticsParams(
            uri=uri, diagnostics=to_diagnostics(findings, positions), version=document.version
        )
    )
