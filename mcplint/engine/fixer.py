"""Applying fixes: one file at a time, verified before anything is written.

A pass applies the edits of every applicable fix that does not overlap one
already taken (earlier findings first; fixes into registry helpers, when there
are any, before all others, which wait for the next pass), adds the imports
those fixes need with LibCST's ``AddImportsVisitor``, lays out the statements the fixes
wrote to the project's line length (``mcplint.engine.wrap``), and lints the result
again; passes repeat
(at most ``MAX_PASSES``) until no applicable fix is left. The outcome is kept
only if the new source parses and, for every code, fewer findings remain than
before by exactly the number fixed: the fixed findings are gone and nothing was
introduced. Otherwise every fix of the file is dropped and the reason reported.
The file is then replaced atomically (``mcplint.atomic``: through a symlink to
its target, in place when it has hard links), in its original encoding (a BOM
stays), newlines and permissions, and only if it still holds the bytes the fixes
were computed from. A file that changed meanwhile or cannot be written is left
as it is: the result then describes the file on disk and carries the reason
(``write_error``), which the run reports as an error.
"""

from __future__ import annotations

import ast
import difflib
import functools
import hashlib
import io
import os
import re
import tokenize
from collections import Counter, OrderedDict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import libcst as cst

from mcplint.analysis.ast_cst import first_line
from mcplint.analysis.loggers import MODULE_LOGGER_IMPORT, imports_a_helper
from mcplint.analysis.project import NO_PROJECT, ProjectContext
from mcplint.atomic import FileChanged, content_digest, write_atomically
from mcplint.engine.positions import LineIndex
from mcplint.engine.result import FileResult
from mcplint.finding import SAFE, Finding
from mcplint.settings import FileSettings
from mcplint.source import LINE_BREAK, UndecodableSource, decode_with_encoding

# Imports inside functions: the linter and LibCST's codemod machinery (about 280 ms to import) are
# imported by the fixes that use them; `is_applicable` serves a warm run without either.

MAX_PASSES = 10
_WORDS = re.compile(r"\w+")  # a name's mentions: the runs of word characters equal to it


@dataclass
class FixOutcome:
    text: str
    fixed: list[Finding] = field(default_factory=list)
    remaining: list[Finding] = field(default_factory=list)
    failure: str | None = None  # why the file's fixes were dropped
    analysis: FileResult = field(default_factory=FileResult)  # of the final text (cross-module facts)


def is_applicable(finding: Finding, unsafe: bool) -> bool:
    return finding.fix is not None and (unsafe or finding.fix.applicability == SAFE)


def fix_path(
    path: str,
    display: str,
    settings: FileSettings,
    *,
    unsafe: bool,
    write: bool,
    skip_generated: bool = False,
    project: ProjectContext = NO_PROJECT,
) -> FileResult:
    """Fix one file (``write=False``: only compute the diff); the result lists what remains."""
    from mcplint.engine.lint import lint_path

    try:
        with open(path, "rb") as handle:
            status = os.fstat(handle.fileno())
            data = handle.read()
        text, encoding = decode_with_encoding(data)
    except (OSError, UndecodableSource):
        return lint_path(path, display, settings, skip_generated, project)
    outcome = fix_text(text, display, settings, unsafe=unsafe, skip_generated=skip_generated, project=project)
    result = replace(outcome.analysis, findings=outcome.remaining, fixed=outcome.fixed)
    if outcome.failure is not None:
        result.warnings.append(f"{display}: {outcome.failure}")
    if outcome.text == text:  # nothing changed: the result describes the file on disk
        result.stat_key = (status.st_size, status.st_mtime_ns)
        result.content_hash = hashlib.sha256(data).hexdigest()
        return result
    try:
        new_data = outcome.text.encode(encoding)
    except UnicodeEncodeError:
        warning = f"{display}: the fixed code cannot be written in {encoding}; no fix applied"
        result = lint_path(path, display, settings, skip_generated, project)
        result.warnings.append(warning)
        return result
    if not write:
        result.diff = unified_diff(text, outcome.text, display)
        return result
    try:
        write_atomically(path, new_data, status.st_mode, expected=content_digest(data))
    except FileChanged:
        reason = f"{display}: changed while mcplint was fixing it; its fixes were not written (run again)"
        return _unwritten(path, display, settings, skip_generated, project, reason)
    except OSError as error:
        reason = f"{display}: cannot write the fixes: {error.strerror or error}"
        return _unwritten(path, display, settings, skip_generated, project, reason)
    try:
        written = os.stat(path)
    except OSError:  # gone already: written, but nothing to key a cache entry by
        return result
    result.stat_key = (written.st_size, written.st_mtime_ns)
    result.content_hash = hashlib.sha256(new_data).hexdigest()
    return result


def _unwritten(
    path: str, display: str, settings: FileSettings, skip_generated: bool, project: ProjectContext, reason: str
) -> FileResult:
    """The fixes were not written: what the file on disk has, and why nothing changed."""
    from mcplint.engine.lint import lint_path

    result = lint_path(path, display, settings, skip_generated, project)
    result.write_error = reason
    return result


def fix_text(
    text: str,
    display: str,
    settings: FileSettings,
    *,
    unsafe: bool,
    skip_generated: bool = False,
    project: ProjectContext = NO_PROJECT,
) -> FixOutcome:
    from mcplint.engine.lint import lint_text

    def analyse(source: str) -> FileResult:
        return lint_text(source, display, settings, skip_generated=skip_generated, project=project)

    first = analyse(text)
    initial = first.findings
    current, findings, fixed, analysis = text, initial, [], first
    for _ in range(MAX_PASSES):
        fixable = [finding for finding in findings if is_applicable(finding, unsafe)]
        if not fixable:
            break
        # Fixes into registry helpers first, alone in their pass: they can make another rule's
        # finding moot (a raise no longer uses `message`, so MCP006 need not blank it for the logs).
        fixable = [
            finding for finding in fixable if finding.fix is not None and imports_a_helper(finding.fix.imports)
        ] or fixable
        updated, applied = apply_edits(current, fixable)
        imports = tuple(sorted({pair for finding in applied if finding.fix is not None for pair in finding.fix.imports}))
        if imports:
            updated = _with_imports(current, updated, imports)
        updated = _laid_out(text, updated, settings.line_length)
        if updated == current:
            break
        if not _parses_once(updated):
            return FixOutcome(text, [], initial, "the fixed code does not parse; no fix applied", first)
        fixed += applied
        current = updated
        analysis = analyse(current)
        findings = analysis.findings
    if _introduced_findings(initial, fixed, findings):
        return FixOutcome(text, [], initial, "a fix would introduce new findings; no fix applied", first)
    return FixOutcome(current, fixed, findings, None, analysis)


class _Remembered:
    """A pure function of texts, its results remembered for the calls whose texts (arguments and
    result) total at most ``budget`` characters, the least recently used forgotten first.

    A file's passes are the same in every cross-module round of a run that does not change its
    fixes, and in the next run of a migration where its fixes stay the same: the text work of a
    pass is done once per process. A count of entries would not do: a round of a large project
    fixes more files than any fixed count holds (each round then starts over: on the corpus of
    29 servers, `lru_cache(maxsize=64)` remembered nothing from one round to the next), and a
    count large enough for it holds too much of an editor's versions of one large file."""

    def __init__(self, function: Callable[..., Any], budget: int) -> None:
        self._function = function
        self._budget = budget
        self._size = 0
        self._results: OrderedDict[tuple[Any, ...], tuple[Any, int]] = OrderedDict()
        functools.update_wrapper(self, function)

    def __call__(self, *args: Any) -> Any:
        found = self._results.get(args)
        if found is not None:
            self._results.move_to_end(args)
            return found[0]
        result = self._function(*args)
        size = sum(len(arg) for arg in args if isinstance(arg, str)) + (len(result) if isinstance(result, str) else 0)
        self._results[args] = (result, size)
        self._size += size
        while self._size > self._budget and self._results:
            _, (_, forgotten) = self._results.popitem(last=False)
            self._size -= forgotten
        return result


def _remembered(budget: int) -> Callable[[Callable[..., Any]], _Remembered]:
    return lambda function: _Remembered(function, budget)


# Characters of text each of the pass's text functions remembers (their keys hold the texts).
TEXT_MEMORY = 64 * 1024 * 1024


@_remembered(TEXT_MEMORY)
def _with_imports(before: str, edited: str, imports: tuple[tuple[str, str], ...]) -> str:
    """The edited text with the imports its fixes need, and without those they left unused."""
    updated = without_imports_made_unused(before, add_imports(edited, imports))
    if MODULE_LOGGER_IMPORT in imports:
        updated = with_module_logger(updated)
    return updated


@_remembered(TEXT_MEMORY)
def _laid_out(original: str, edited: str, line_length: int) -> str:
    """The edited text with the statements the fixes wrote laid out to the project's line
    length (`mcplint.engine.wrap`: as black would, touching no line the file had before)."""
    from mcplint.engine.wrap import relayout

    return relayout(original, edited, line_length)


@_remembered(TEXT_MEMORY)
def _parses_once(text: str) -> bool:
    return parses(text)


def apply_edits(text: str, findings: Sequence[Finding]) -> tuple[str, list[Finding]]:
    """Apply the fixes whose edits overlap none taken before; returns the text and those findings."""
    lines = LineIndex(text)
    taken: list[tuple[int, int]] = []
    applied: list[Finding] = []
    replacements: list[tuple[int, int, str]] = []
    for finding in sorted(findings, key=lambda finding: (finding.line, finding.column)):
        assert finding.fix is not None
        spans = [
            (lines.offset(edit.line, edit.column), lines.offset(edit.end_line, edit.end_column), edit.content)
            for edit in finding.fix.edits
        ]
        if any(_overlaps(start, end, taken) for start, end, _ in spans):
            continue
        taken += [(start, end) for start, end, _ in spans]
        replacements += spans
        applied.append(finding)
    for start, end, content in sorted(replacements, reverse=True):
        text = text[:start] + content + text[end:]
    return text, applied


def _overlaps(start: int, end: int, taken: Iterable[tuple[int, int]]) -> bool:
    return any(start < other_end and other_start < end or start == other_start for other_start, other_end in taken)


def add_imports(text: str, imports: Sequence[tuple[str, str]]) -> str:
    """``text`` with the imports, as LibCST's ``AddImportsVisitor`` adds them. The visitor reads
    and edits only the module's head (a docstring, the block of imports after it) and the blank
    line before the first statement after that block, but walks and copies the whole tree; on a
    large module most of a fix pass went there. So it runs on the head alone, with a stand-in for
    the first statement after it, and the rest of the body is put back untouched. Not even parsed:
    where CPython's parser (a tenth of LibCST's) finds the head ending, LibCST parses only the
    text before that statement, with ``pass`` in its place, and the text from it on is kept."""
    head = _head_text(text)
    quick = _imports_added_as_text(text, head, imports)
    if quick is not None:
        return quick
    if head is not None:
        try:
            added = _add_imports_parsed(head + _STAND_IN, imports)
        except cst.ParserSyntaxError:
            added = None
        if added is not None and added.endswith(_STAND_IN):
            return added[: -len(_STAND_IN)] + text[len(head) :]
    return _add_imports_parsed(text, imports)


_STAND_IN = "pass\n"


def _imports_added_as_text(text: str, head: str | None, imports: Sequence[tuple[str, str]]) -> str | None:
    """What ``AddImportsVisitor`` makes of the commonest case, written as text without LibCST
    (whose visitors cost more to build than to run on a module's head): the module has an
    import block at its top (after a docstring or `__strict__` flag, if any) that imports none
    of the modules asked for. The new `import m` lines (sorted), then the `from m import a, b`
    lines (sorted by module, names sorted) go after the block, and a blank line after them
    when the next statement has none before it. None: any other case (the visitor's).
    ``head``: `_head_text`'s, None when it found none."""
    if any(module == "__future__" for module, _ in imports) or _LONE_CR.search(text) or not text.endswith("\n"):
        return None
    try:
        tree = ast.parse(head if head is not None else text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    lines = _statement_lines(tree.body)
    start = 1 if lines and _docstring_or_strict(lines[0], text) else 0
    end = start
    while end < len(lines) and len(lines[end]) == 1 and isinstance(lines[end][0], (ast.Import, ast.ImportFrom)):
        end += 1
    if end == 0:
        return None  # before the first statement: LibCST's module header decides where
    wanted = {module for module, _ in imports}
    for (statement,) in lines[start:end]:
        if isinstance(statement, ast.Import):
            imported = [alias.name for alias in statement.names]
        else:
            assert isinstance(statement, ast.ImportFrom)
            imported = [statement.module or ""] if statement.level == 0 else []
        if wanted.intersection(imported):
            return None  # merged into that import, or already there: the visitor's
    newline = _FIRST_LINE_BREAK.search(text)
    line_break = newline.group(0) if newline is not None else "\n"
    added = [f"import {module}{line_break}" for module in sorted({module for module, name in imports if not name})]
    names: dict[str, set[str]] = {}
    for module, name in imports:
        if name:
            names.setdefault(module, set()).add(name)
    added += [f"from {module} import {', '.join(sorted(names[module]))}{line_break}" for module in sorted(names)]
    at = _line_start(text, lines[end - 1][-1].end_lineno + 1)  # type: ignore[operator]
    following = len(head) if head is not None else None  # the head ends where the next statement begins
    if end < len(lines):
        following = _line_start(text, first_line(lines[end][0]))
    if following is not None:
        between = text[at:following]
        if not between or between.lstrip(" \t\f").startswith("#"):
            added.append(line_break)  # the visitor's blank line before the next statement
    return text[:at] + "".join(added) + text[at:]


_FIRST_LINE_BREAK = re.compile(r"\r\n|\r|\n")


def _statement_lines(body: Sequence[ast.stmt]) -> list[list[ast.stmt]]:
    """The module's statements by line, as LibCST groups them (`import os; x = 1` is one)."""
    lines: list[list[ast.stmt]] = []
    for statement in body:
        if lines and statement.lineno == lines[-1][-1].end_lineno:
            lines[-1].append(statement)
        else:
            lines.append([statement])
    return lines


def _docstring_or_strict(line: list[ast.stmt], text: str) -> bool:
    """The first line is a lone string (one literal, not implicitly joined: LibCST's
    SimpleString) or `__strict__ = ...`: the visitor adds nothing before it."""
    if len(line) != 1:
        return False
    statement = line[0]
    if isinstance(statement, ast.Assign):
        target = statement.targets[0]
        return len(statement.targets) == 1 and isinstance(target, ast.Name) and target.id == "__strict__"
    if not isinstance(statement, ast.Expr) or not isinstance(statement.value, ast.Constant):
        return False
    if not isinstance(statement.value.value, (str, bytes)):
        return False
    source = ast.get_source_segment(text, statement.value)
    if source is None:
        return False
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(source).readline))
    except (tokenize.TokenError, SyntaxError):
        return False
    return sum(token.type == tokenize.STRING for token in tokens) == 1


def _head_text(text: str) -> str | None:
    """The text before the first top-level statement after the module's first statement and the
    `import` lines that follow it (that statement's comments and blank lines before it included):
    found by Python's tokenizer, which stops there. None when there is no such statement."""
    if _LONE_CR.search(text):  # the tokenizer's lines end at `\n` only
        return None
    statements = 0
    decorated = False
    line_start = True  # the next token begins a logical line
    try:
        for token in tokenize.generate_tokens(io.StringIO(text, newline="").readline):
            if token.type in _NOT_A_STATEMENT:
                line_start = line_start or token.type == tokenize.NEWLINE
                continue
            if not line_start:
                continue
            line_start = False
            if token.start[1] != 0:  # in an indented block
                continue
            if token.type == tokenize.OP and token.string == "@":
                if decorated:
                    continue
                decorated = True  # the statement begins with its decorators
            elif decorated:
                decorated = False  # the `def` or `class` the decorators began
                continue
            statements += 1
            if statements > 1 and not (token.type == tokenize.NAME and token.string in ("import", "from")):
                break
        else:
            return None
    except (tokenize.TokenError, SyntaxError):
        return None
    head = text[: _line_start(text, token.start[0])]
    try:  # only whole statements before it
        ast.parse(head)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    return head


_LONE_CR = re.compile(r"\r(?!\n)")
_NOT_A_STATEMENT = frozenset(
    (tokenize.NL, tokenize.NEWLINE, tokenize.COMMENT, tokenize.INDENT, tokenize.DEDENT, tokenize.ENDMARKER)
)


def _line_start(text: str, line: int) -> int:
    """The offset of the 1-based ``line``'s first character."""
    if line == 1:
        return 0
    for number, match in enumerate(LINE_BREAK.finditer(text), start=2):
        if number == line:
            return match.end()
    return len(text)


def _add_imports_parsed(text: str, imports: Sequence[tuple[str, str]]) -> str:
    from libcst.codemod import CodemodContext
    from libcst.codemod.visitors import AddImportsVisitor, ImportItem

    module = cst.parse_module(text)
    items = [ImportItem(module_name, obj_name=name or None) for module_name, name in imports]  # "": `import x`
    end = _import_block_end(module.body)
    rest = list(module.body[end:])
    stand_in = [cst.SimpleStatementLine([cst.Pass()], leading_lines=rest[0].leading_lines)] if rest else []
    head = AddImportsVisitor(CodemodContext(), items).transform_module(
        module.with_changes(body=[*module.body[:end], *stand_in])
    )
    body = list(head.body)
    if rest:  # the visitor may have given the first statement after the imports a blank line
        rest[0] = rest[0].with_changes(leading_lines=body.pop().leading_lines)
    code = module.with_changes(body=[*body, *rest]).code
    # LibCST drops the last line break of a file whose line breaks are lone CRs: put it back.
    if text.endswith("\r") and not code.endswith(("\r", "\n")):
        code += "\r"
    return code


def _import_block_end(body: Sequence[cst.BaseStatement]) -> int:
    """Where ``AddImportsVisitor`` looks no further: after a leading docstring or `__strict__`
    flag, the first statement that is not a line of one import."""
    start = 1 if body and _is_docstring_or_strict(body[0]) else 0
    end = start
    while end < len(body) and _is_import_line(body[end]):
        end += 1
    return end


def _is_import_line(statement: cst.BaseStatement) -> bool:
    return (
        isinstance(statement, cst.SimpleStatementLine)
        and len(statement.body) == 1
        and isinstance(statement.body[0], (cst.Import, cst.ImportFrom))
    )


def _is_docstring_or_strict(statement: cst.BaseStatement) -> bool:
    if not isinstance(statement, cst.SimpleStatementLine) or len(statement.body) != 1:
        return False
    small = statement.body[0]
    if isinstance(small, cst.Expr):
        return isinstance(small.value, cst.SimpleString)
    return (
        isinstance(small, cst.Assign)
        and len(small.targets) == 1
        and isinstance(small.targets[0].target, cst.Name)
        and small.targets[0].target.value == "__strict__"
    )


_MODULE_LOGGER = "logger = logging.getLogger(__name__)\n"


def with_module_logger(text: str) -> str:
    """``text`` with `logger = logging.getLogger(__name__)` after its top-level imports (before
    its first function or class), unless the module binds `logger` already (a fix's
    `logger.exception(...)` needs it). CPython's parser (a tenth of LibCST's) answers whether it
    does and where the first function or class begins; LibCST then sees only the text before
    it, with a stand-in for it, as ``add_imports`` does."""
    if not _LONE_CR.search(text):
        try:
            tree = ast.parse(text)
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            tree = None
        if tree is not None:
            if any(_binds_logger(statement) for statement in tree.body):
                return text
            first = next((s for s in tree.body if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))), None)
            cut = _line_start(text, first_line(first)) if first is not None else 0
            if cut:
                added = _with_module_logger_parsed(text[:cut] + _STAND_IN)
                if added.endswith(_STAND_IN):
                    return added[: -len(_STAND_IN)] + text[cut:]
    return _with_module_logger_parsed(text)


def _binds_logger(statement: ast.stmt) -> bool:
    if isinstance(statement, ast.Assign):
        return any(isinstance(target, ast.Name) and target.id == "logger" for target in statement.targets)
    return isinstance(statement, ast.AnnAssign) and isinstance(statement.target, ast.Name) and statement.target.id == "logger"


def _with_module_logger_parsed(text: str) -> str:
    module = cst.parse_module(text)
    body = list(module.body)
    for statement in body:
        if isinstance(statement, cst.SimpleStatementLine):
            for small in statement.body:
                if isinstance(small, (cst.Assign, cst.AnnAssign)) and "logger" in _bound_names(small):
                    return text
    last_import = -1
    for index, statement in enumerate(body):
        if isinstance(statement, (cst.FunctionDef, cst.ClassDef)):
            break
        if isinstance(statement, cst.SimpleStatementLine) and any(
            isinstance(small, (cst.Import, cst.ImportFrom)) for small in statement.body
        ):
            last_import = index
    line = cst.parse_statement(_MODULE_LOGGER).with_changes(leading_lines=[cst.EmptyLine()])
    body.insert(last_import + 1, line)
    return module.with_changes(body=body).code


def _bound_names(statement: cst.Assign | cst.AnnAssign) -> set[str]:
    targets = [target.target for target in statement.targets] if isinstance(statement, cst.Assign) else [statement.target]
    return {target.value for target in targets if isinstance(target, cst.Name)}


def without_imports_made_unused(before: str, after: str) -> str:
    """``after`` without the imports its edits left unused (`INTERNAL_ERROR`, `ErrorData` once the
    raise that used them is the registry's): only those, never one that was unused before.

    A name is a candidate when the edits took away its last mention besides the import (a
    word count, cheap: most passes have none); LibCST's RemoveImportsVisitor then removes it
    only if its scope analysis finds no use either."""

    words_after, words_before = Counter(_WORDS.findall(after)), Counter(_WORDS.findall(before))
    if not any(count == 1 and words_before[word] > 1 for word, count in words_after.items()):
        return after  # no name lost its last mention besides one
    try:
        tree = ast.parse(after)
    except (SyntaxError, ValueError):
        return after
    unused: list[tuple[str, str, str | None]] = []
    for statement in tree.body:
        if not isinstance(statement, ast.ImportFrom) or not statement.module or statement.level:
            continue
        if statement.module == "__future__":
            continue
        for alias in statement.names:
            bound = alias.asname or alias.name  # `*` is never a word: a star import stays
            if words_after[bound] == 1 and words_before[bound] > 1:
                unused.append((statement.module, alias.name, alias.asname))
    if not unused:
        return after
    return _without_imports(cst.parse_module(after), unused)


def _without_imports(module: cst.Module, unused: Sequence[tuple[str, str, str | None]]) -> str:
    """The module without those `from` imports, by RemoveImportsVisitor. Each name is mentioned
    once in the whole text (its import, a top-level statement), so the visitor's scope analysis
    sees the same on that statement alone as on the module: it runs on each such statement
    alone, not on the whole module (which costs as much as linting it)."""
    from libcst.codemod import CodemodContext
    from libcst.codemod.visitors import RemoveImportsVisitor

    names = {name for _, name, _ in unused}
    body: list[cst.BaseStatement] = []
    for statement in module.body:
        if not _imports_one_of(statement, names):
            body.append(statement)
            continue
        context = CodemodContext()
        for module_name, name, asname in unused:
            RemoveImportsVisitor.remove_unused_import(context, module_name, name, asname)
        body += RemoveImportsVisitor(context).transform_module(module.with_changes(body=[statement])).body
    return module.with_changes(body=body).code


def _imports_one_of(statement: cst.BaseStatement, names: set[str]) -> bool:
    """A line with a `from` import of one of the names."""
    if not isinstance(statement, cst.SimpleStatementLine):
        return False
    return any(
        isinstance(small, cst.ImportFrom)
        and not isinstance(small.names, cst.ImportStar)
        and any(alias.evaluated_name in names for alias in small.names)
        for small in statement.body
    )


def parses(text: str) -> bool:
    """Whether LibCST parses ``text``: a rewrite is only ever written when it does. The module
    goes to the linter, which analyses that text next."""
    from mcplint.engine.cst_parse import parse_module
    from mcplint.engine.lint import hand_over_parsed

    try:
        module = parse_module(text)
    except cst.ParserSyntaxError:
        return False
    hand_over_parsed(text, module)
    return True


def _introduced_findings(initial: Sequence[Finding], fixed: Sequence[Finding], final: Sequence[Finding]) -> bool:
    allowed = Counter(finding.code for finding in initial)
    allowed.subtract(finding.code for finding in fixed)
    return any(count > allowed[code] for code, count in Counter(finding.code for finding in final).items())


def unified_diff(before: str, after: str, display: str) -> str:
    return "".join(
        difflib.unified_diff(
            before.splitlines(keepends=True), after.splitlines(keepends=True), fromfile=display, tofile=display
        )
    )
