"""Which registry entry a hand-written error message stands for: what fixes rewrite into.

A message matches an entry when their constant text is the same (case, spacing
and a final full stop aside) and, for an f-string, each `{expression}` sits
where the entry's message has a `{placeholder}`; the placeholders then become
the helper's keyword arguments. Only a unique match counts: a fix must not
guess.
"""

from __future__ import annotations

import builtins
import re
import weakref
from collections.abc import Sequence
from dataclasses import dataclass

import libcst as cst

from mcplint.registry.codegen import helper_name
from mcplint.registry.model import ErrorEntry, Registry
from mcplint.registry.validate import HELPER_KEYWORDS

_PLACEHOLDER = re.compile(r"\{(\w+)\}")


@dataclass(frozen=True)
class Match:
    entry: ErrorEntry
    helper: str
    arguments: tuple[tuple[str, cst.BaseExpression], ...]  # placeholder -> the expression filling it


def _normal(text: str, last: bool) -> str:
    text = " ".join(text.split()).casefold()
    return text.rstrip(".!") if last else text


# A registry message's pieces, as the generated helpers' `_fill` reads them: `{{` and `}}`
# are literal braces, `{name}` a placeholder.
_MESSAGE_PIECE = re.compile(r"\{\{|\}\}|\{(\w+)\}")


def _template(message: str) -> list[str]:
    """Alternating constant text and placeholder names: text, name, text, ... (the texts as
    the client reads them: `{{` is `{`)."""
    pieces, last = [""], 0
    for found in _MESSAGE_PIECE.finditer(message):
        pieces[-1] += message[last : found.start()]
        if found.group(1) is None:
            pieces[-1] += found.group(0)[0]
        else:
            pieces += [found.group(1), ""]
        last = found.end()
    pieces[-1] += message[last:]
    return pieces


def placeholders(message: str) -> list[str]:
    """The `{name}`s of a registry message (not `{{name}}`, a literal text)."""
    return _template(message)[1::2]


def literal_text(raw: str, prefix: str) -> str:
    """What an f-string's literal part says: its source text (`a\\n{{`) with its escapes
    and doubled braces read (a newline and `{`), as the string at run time has it."""
    text = raw.replace("{{", "{").replace("}}", "}")
    if "r" in prefix.lower():
        return text
    return text.encode("latin-1", "backslashreplace").decode("unicode_escape")


def source_text(text: str) -> str:
    """``text`` written as an f-string's literal part: `literal_text`'s inverse."""
    return text.encode("unicode_escape").decode("ascii").replace("{", "{{").replace("}", "}}")


def _source(expression: cst.BaseExpression) -> list[str | cst.BaseExpression] | None:
    if isinstance(expression, cst.SimpleString):
        value = expression.evaluated_value
        return [value] if isinstance(value, str) else None
    if not isinstance(expression, cst.FormattedString):
        return None
    parts: list[str | cst.BaseExpression] = [""]
    for part in expression.parts:
        if isinstance(part, cst.FormattedStringText):
            parts[-1] = f"{parts[-1]}{literal_text(part.value, expression.prefix)}"
        elif isinstance(part, cst.FormattedStringExpression) and part.conversion is None and part.format_spec is None:
            parts += [part.expression, ""]
        else:
            return None
    return parts


def match_message(registry: Registry, message: cst.BaseExpression) -> Match | None:
    source = _source(message)
    if source is None:
        return None
    found = _index(registry).get(_texts_key(source), ())
    if len(found) != 1:
        return None
    entry, helper, template = found[0]
    holes = [part for part in source[1::2] if isinstance(part, cst.BaseExpression)]
    return Match(entry, helper, tuple(zip(template[1::2], holes, strict=True)))


def _texts_key(pieces: Sequence[str | cst.BaseExpression]) -> tuple[object, ...]:
    """What a message and an entry's must share to match: the number of pieces and the
    constant texts, compared as `_normal` reads them."""
    last = len(pieces) - 1
    return (len(pieces), *(_normal(str(pieces[index]), index == last) for index in range(0, len(pieces), 2)))


_Indexed = dict[tuple[object, ...], list[tuple[ErrorEntry, str, list[str]]]]
# Per registry (a process loads each registry file once, `rules.base.configured_registry`),
# its live entries by `_texts_key`: a run matches thousands of sites against hundreds of
# entries (a migration's trial registry has one per message).
_INDEXES: dict[int, tuple[weakref.ref[Registry], _Indexed]] = {}


def _index(registry: Registry) -> _Indexed:
    held = _INDEXES.get(id(registry))
    if held is not None and held[0]() is registry:
        return held[1]
    index: _Indexed = {}
    for domain in registry.domains:
        helper = helper_name(domain)
        for entry in domain.errors:
            if entry.status == "retired" or entry.message is None or entry.code is None:
                continue
            template = _template(entry.message)
            index.setdefault(_texts_key(template), []).append((entry, helper, template))
    for key in [key for key, (alive, _) in _INDEXES.items() if alive() is None]:
        del _INDEXES[key]
    _INDEXES[id(registry)] = (weakref.ref(registry), index)
    return index


_KEYWORD_EQUAL = cst.AssignEqual(whitespace_before=cst.SimpleWhitespace(""), whitespace_after=cst.SimpleWhitespace(""))


def helper_call(found: Match) -> cst.Call:
    """`notes_error("NOTE_NOT_FOUND", note_id=note_id)`: the generated helper's call."""
    arguments = [cst.Arg(cst.SimpleString(f'"{found.entry.symbol}"'))]
    arguments += [cst.Arg(value, keyword=cst.Name(name), equal=_KEYWORD_EQUAL) for name, value in found.arguments]
    return cst.Call(cst.Name(found.helper), arguments)


# -- the message a site's registry entry has ---------------------------------------------
_ERROR_PREFIX = re.compile(r"^\W*(error|failed)\s*:\s*", re.IGNORECASE)
_DANGLING = re.compile(r"[\s:;,\-(\[]+$")
# Names that say nothing about what failed: a decorator's inner function, a dispatcher.
_GENERIC_NAMES = frozenset(
    {"wrapper", "inner", "wrapped", "decorated", "decorator", "func", "fn", "function", "call", "run",
     "execute", "main", "handler", "handle", "errors", "error", "call_tool", "dispatch", "impl", "invoke"}
)  # fmt: skip
UNEXPECTED_FAILURE = "Unexpected error"
# What a JSON-RPC code says when the site's message is only the exception's text: the meaning
# the code carried (`McpError(INVALID_PARAMS, str(e))`), not a name from the enclosing function.
MESSAGE_BY_STANDARD_CODE = {-32602: "Invalid parameters", -32601: "Method not found", -32600: "Invalid request"}
# The registry category (a google.rpc.Code name) of those messages' entries.
CATEGORY_BY_MESSAGE = {
    "Invalid parameters": "INVALID_ARGUMENT",
    "Method not found": "NOT_FOUND",
    "Invalid request": "INVALID_ARGUMENT",
}


def without_error_prefix(message: cst.BaseExpression) -> cst.BaseExpression:
    """`"Error: Note 3 does not exist."` says "Note 3 does not exist."."""
    if isinstance(message, cst.SimpleString) and isinstance(message.evaluated_value, str):
        return cst.SimpleString(repr(_ERROR_PREFIX.sub("", message.evaluated_value, count=1)))
    if isinstance(message, cst.FormattedString) and message.parts:
        first = message.parts[0]
        if isinstance(first, cst.FormattedStringText):
            stripped = _ERROR_PREFIX.sub("", first.value, count=1)
            return message.with_changes(parts=[first.with_changes(value=stripped), *message.parts[1:]])
    return message


def site_message(
    message: cst.BaseExpression | None, function: str | None, caught: str | None
) -> cst.BaseExpression | None:
    """The message a site's registry entry says, as a string or an f-string.

    The text as written, without an `Error:` prefix and without the caught
    exception's text (`f"could not save note: {e}"` says "could not save note");
    when nothing is left, or the message is only the exception (`str(e)`), what
    failed: the enclosing function (`create_note` → "Create note failed").
    None when the message is neither (a variable, a call): no entry can be made.
    """
    exception_names = _EXCEPTION_NAMES | ({caught} if caught else set())
    if message is None:
        return cst.SimpleString(repr(failure_text(function))) if caught else None
    if _is_exception_part(message, exception_names):
        return cst.SimpleString(repr(failure_text(function)))
    message = without_error_prefix(_flattened(message))
    if isinstance(message, cst.SimpleString):
        return message if isinstance(message.evaluated_value, str) else None
    if not isinstance(message, cst.FormattedString):
        return None
    parts: list[cst.BaseFormattedStringContent] = []
    dropped = False
    for part in message.parts:
        if not isinstance(part, cst.FormattedStringExpression):
            parts.append(part)
        elif _is_exception_part(part.expression, exception_names):
            dropped = True  # the exception's text (and its attributes: `e.stderr`) is for the logs
        else:
            plain = _without_conversion(part)
            if plain is None:
                return None
            parts.append(plain)
    parts = _joined_texts(parts)
    if dropped:  # what introduced the dropped text goes with it ("failed: {e}" says "failed")
        parts = [
            part.with_changes(value=_ORPHAN_SEPARATOR.sub("", part.value)) if isinstance(part, cst.FormattedStringText) else part
            for part in parts
        ]
        if parts and isinstance(parts[-1], cst.FormattedStringText):
            parts[-1] = parts[-1].with_changes(value=_DANGLING.sub("", _EMPTY_BRACKETS.sub("", parts[-1].value)))
    words = {
        word.casefold() for part in parts if isinstance(part, cst.FormattedStringText)
        for word in _WORDS.findall(part.value)
    }  # fmt: skip
    if words <= _SAYS_NOTHING:
        return cst.SimpleString(repr(failure_text(function)))
    texts = [part.value for part in parts if isinstance(part, cst.FormattedStringText)]
    if len(texts) == len(parts):
        text = "".join(texts)
        return cst.SimpleString(repr(literal_text(text, message.prefix)))
    return message.with_changes(parts=parts)


_WORDS = re.compile(r"[A-Za-z]{2,}")
_ORPHAN_SEPARATOR = re.compile(r"\s*[:;,\-]\s*(?=[.!?)\]])")  # "in {tool}: {e}. Retry" lost the {e}


def _flattened(message: cst.BaseExpression) -> cst.BaseExpression:
    """`("Unknown mode. " f"Use {modes}")` (implicit concatenation) and `"Cannot resolve: " + names`
    as one f-string."""
    pieces: list[cst.BaseExpression]
    if isinstance(message, cst.ConcatenatedString):
        pieces = [message.left, message.right]
    elif (
        isinstance(message, cst.BinaryOperation)
        and isinstance(message.operator, cst.Add)
        and _is_text(_flattened(message.left))
    ):
        pieces = [message.left, message.right]
    else:
        return message
    parts: list[cst.BaseFormattedStringContent] = []
    for written in pieces:
        piece = _flattened(written)
        if isinstance(piece, cst.SimpleString) and isinstance(piece.evaluated_value, str):
            parts.append(cst.FormattedStringText(source_text(piece.evaluated_value)))
        elif isinstance(piece, cst.FormattedString) and "r" not in piece.prefix.lower():
            parts.extend(piece.parts)
        elif isinstance(message, cst.BinaryOperation) and not isinstance(piece, (cst.SimpleString, cst.FormattedString)):
            parts.append(cst.FormattedStringExpression(piece.with_changes(lpar=[], rpar=[])))  # `+ names`
        else:
            return message  # bytes, raw f-strings: left as they are (no entry)
    return cst.FormattedString(_joined_texts(parts))


def _is_text(expression: cst.BaseExpression) -> bool:
    if isinstance(expression, cst.SimpleString):
        return isinstance(expression.evaluated_value, str)
    return isinstance(expression, cst.FormattedString)


_CONVERSIONS = {"r": "repr", "s": "str", "a": "ascii"}


def _without_conversion(part: cst.FormattedStringExpression) -> cst.FormattedStringExpression | None:
    """`{value!r}` as `{repr(value)}` and `{size:>10}` as `{format(size, ">10")}`: the helper fills
    a placeholder with `str(...)`, so the value passed must already be the text shown."""
    expression = part.expression
    if part.equal is not None:
        return None  # `{value=}` shows its own source text too
    if part.conversion is not None:
        expression = cst.Call(cst.Name(_CONVERSIONS[part.conversion]), [cst.Arg(expression)])
    if part.format_spec is not None:
        specs = [spec for spec in part.format_spec if isinstance(spec, cst.FormattedStringText)]
        if len(specs) != len(part.format_spec):
            return None
        spec = "".join(spec.value for spec in specs)
        expression = cst.Call(cst.Name("format"), [cst.Arg(expression), cst.Arg(cst.SimpleString(repr(spec)))])
    return part.with_changes(expression=expression, conversion=None, format_spec=None, equal=None)


def _is_exception_part(expression: cst.BaseExpression, names: frozenset[str] | set[str]) -> bool:
    """The caught exception, its text, or anything read from it (`e.stderr`, `str(e.args[0])`)."""
    if _is_exception_text(expression, names):
        return True
    if isinstance(expression, cst.Call) and len(expression.args) == 1 and isinstance(expression.func, cst.Name):
        if expression.func.value in ("str", "repr", "format"):
            expression = expression.args[0].value
    return _root_name(expression) in names


def _root_name(expression: cst.BaseExpression) -> str | None:
    while isinstance(expression, (cst.Attribute, cst.Subscript, cst.Call, cst.BooleanOperation)):
        if isinstance(expression, cst.Call):
            expression = expression.func
        elif isinstance(expression, cst.BooleanOperation):
            expression = expression.left
        else:
            expression = expression.value
    return expression.value if isinstance(expression, cst.Name) else None
_EMPTY_BRACKETS = re.compile(r"\s*(\(\s*\)|\[\s*\]|'\s*'|\"\s*\")")
_SAYS_NOTHING = frozenset({"error", "errors", "failed", "failure", "exception", "an", "unexpected", "occurred", "internal", "the"})


def _joined_texts(parts: list[cst.BaseFormattedStringContent]) -> list[cst.BaseFormattedStringContent]:
    joined: list[cst.BaseFormattedStringContent] = []
    for part in parts:
        previous = joined[-1] if joined else None
        if isinstance(part, cst.FormattedStringText) and isinstance(previous, cst.FormattedStringText):
            joined[-1] = previous.with_changes(value=previous.value + part.value)
        else:
            joined.append(part)
    return joined


def failure_text(function: str | None) -> str:
    """`notes.create_note` → "Create note failed"; a generic name (`wrapper`) → "Unexpected error"."""
    for segment in reversed((function or "").split(".")):
        name = segment.strip("_")
        for prefix in ("handle_", "do_", "_impl"):
            name = name.removeprefix(prefix) if prefix.endswith("_") else name.removesuffix(prefix)
        if segment.startswith("<") or not name or name in _GENERIC_NAMES or segment.lower() in _GENERIC_NAMES:
            continue
        words = " ".join(name.split("_")).strip()
        return f"{words[0].upper()}{words[1:]} failed"
    return UNEXPECTED_FAILURE


def template_of(expression: cst.BaseExpression) -> str | None:
    """A message expression as a registry message: `f"Note {note.id} missing"` is
    `Note {id} missing`; None when it is not a string or an f-string, or when it
    embeds the caught exception (`f"failed: {e}"`), which a registry message must not."""
    source = _source(expression)
    if source is None:
        return None
    names: list[str] = []
    parts = []
    for part in source:  # text and the expressions between, alternately
        if isinstance(part, str):
            parts.append(part.replace("{", "{{").replace("}", "}}"))
            continue
        if _is_exception_text(part):
            return None
        name = _placeholder_name(part, len(names))
        if name in HELPER_KEYWORDS:  # `hint=` is the helper's own keyword: the value would not fill `{hint}`
            name = f"{name}_value"
        while name in names:
            name = f"{name}_{len(names)}"
        names.append(name)
        parts.append("{" + name + "}")
    return "".join(parts)


# A message built from the caught exception would carry its text to the client.
_EXCEPTION_NAMES = frozenset({"e", "err", "error", "exc", "ex", "exception"})


def _is_exception_text(expression: cst.BaseExpression, names: frozenset[str] | set[str] = _EXCEPTION_NAMES) -> bool:
    """`e`, `str(e)`, `repr(e)`, `e.args`, `e.message`, and `type(e).__name__` (what the plain
    MCP006 fix leaves: it names the exception, and a registry message does not need it)."""
    if isinstance(expression, cst.Attribute) and expression.attr.value == "__name__":
        owner = expression.value
        if isinstance(owner, cst.Attribute) and owner.attr.value == "__class__":
            expression = owner.value  # e.__class__.__name__
        elif isinstance(owner, cst.Call) and isinstance(owner.func, cst.Name) and owner.func.value == "type":
            expression = owner.args[0].value if len(owner.args) == 1 else owner
    if isinstance(expression, cst.Call) and len(expression.args) == 1 and isinstance(expression.func, cst.Name):
        if expression.func.value in ("str", "repr", "format"):
            expression = expression.args[0].value
    if isinstance(expression, cst.Attribute) and expression.attr.value in ("args", "message", "msg", "detail"):
        expression = expression.value
    return isinstance(expression, cst.Name) and expression.value in names


def _placeholder_name(expression: cst.BaseExpression, index: int) -> str:
    """`{note_id}` → note_id, `{note.id}` → id, `{(token or "").strip()}` → token."""
    if isinstance(expression, cst.Name):
        return expression.value
    if isinstance(expression, cst.Attribute):
        attribute = expression.attr.value
        if attribute.startswith("__"):  # `func.__name__` → func_name
            return f"{_root_name(expression) or 'value'}_{attribute.strip('_')}"
        return attribute
    pending = [expression]
    while pending:  # the expression's own root, then its arguments' (`sorted(unknown)` → unknown)
        candidate = pending.pop(0)
        root = _root_name(candidate)
        if root is not None and not hasattr(builtins, root):
            return root
        pending += [arg.value for arg in getattr(candidate, "args", ())]
        if isinstance(candidate, cst.Call) and isinstance(candidate.func, cst.Attribute):
            pending.append(candidate.func.value)
    return f"value{index + 1}"
