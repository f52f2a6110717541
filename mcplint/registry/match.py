"""Which registry entry a hand-written error message stands for: what fixes rewrite into.

A message matches an entry when their constant text is the same (case, spacing
and a final full stop aside) and, for an f-string, each `{expression}` sits
where the entry's message has a `{placeholder}`; the placeholders then become
the helper's keyword arguments. Only a unique match counts: a fix must not
guess (DESIGN §7).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import libcst as cst

from mcplint.registry.codegen import helper_name
from mcplint.registry.model import ErrorEntry, Registry

_PLACEHOLDER = re.compile(r"\{(\w+)\}")


@dataclass(frozen=True)
class Match:
    entry: ErrorEntry
    helper: str
    arguments: tuple[tuple[str, cst.BaseExpression], ...]  # placeholder -> the expression filling it


def _normal(text: str, last: bool) -> str:
    text = " ".join(text.split()).casefold()
    return text.rstrip(".!") if last else text


def _template(message: str) -> list[str]:
    """Alternating constant text and placeholder names: text, name, text, ..."""
    return _PLACEHOLDER.split(message)


def _source(expression: cst.BaseExpression) -> list[str | cst.BaseExpression] | None:
    if isinstance(expression, cst.SimpleString):
        value = expression.evaluated_value
        return [value] if isinstance(value, str) else None
    if not isinstance(expression, cst.FormattedString):
        return None
    parts: list[str | cst.BaseExpression] = [""]
    for part in expression.parts:
        if isinstance(part, cst.FormattedStringText):
            parts[-1] = f"{parts[-1]}{part.value}"  # type: ignore[str-bytes-safe]
        elif part.conversion is None and part.format_spec is None:
            parts += [part.expression, ""]
        else:
            return None
    return parts


def match_message(registry: Registry, message: cst.BaseExpression) -> Match | None:
    source = _source(message)
    if source is None:
        return None
    found = []
    for domain in registry.domains:
        for entry in domain.errors:
            if entry.status == "retired" or entry.message is None or entry.code is None:
                continue
            template = _template(entry.message)
            if len(template) != len(source):
                continue
            last = len(template) - 1
            texts_agree = all(
                _normal(template[index], index == last) == _normal(str(source[index]), index == last)
                for index in range(0, len(template), 2)
            )
            if texts_agree:
                arguments = tuple((template[index], source[index]) for index in range(1, len(template), 2))
                found.append(Match(entry, helper_name(domain), arguments))  # type: ignore[arg-type]
    return found[0] if len(found) == 1 else None


_KEYWORD_EQUAL = cst.AssignEqual(whitespace_before=cst.SimpleWhitespace(""), whitespace_after=cst.SimpleWhitespace(""))


def helper_call(found: Match) -> cst.Call:
    """`notes_error("NOTE_NOT_FOUND", note_id=note_id)`: the generated helper's call."""
    arguments = [cst.Arg(cst.SimpleString(f'"{found.entry.symbol}"'))]
    arguments += [cst.Arg(value, keyword=cst.Name(name), equal=_KEYWORD_EQUAL) for name, value in found.arguments]
    return cst.Call(cst.Name(found.helper), arguments)


def template_of(expression: cst.BaseExpression) -> str | None:
    """A message expression as a registry message: `f"Note {note.id} missing"` is
    `Note {id} missing`; None when it is not a string or an f-string, or when it
    embeds the caught exception (`f"failed: {e}"`), which a registry message must not."""
    source = _source(expression)
    if source is None:
        return None
    names: list[str] = []
    parts = []
    for index, part in enumerate(source):
        if index % 2 == 0:
            parts.append(str(part).replace("{", "{{").replace("}", "}}"))
            continue
        if _is_exception_text(part):  # type: ignore[arg-type]
            return None
        name = _placeholder_name(part, len(names))  # type: ignore[arg-type]
        while name in names:
            name = f"{name}_{len(names)}"
        names.append(name)
        parts.append("{" + name + "}")
    return "".join(parts)


# A message built from the caught exception would carry its text to the client.
_EXCEPTION_NAMES = frozenset({"e", "err", "error", "exc", "ex", "exception"})


def _is_exception_text(expression: cst.BaseExpression) -> bool:
    if isinstance(expression, cst.Call) and expression.args:
        expression = expression.args[0].value  # str(e), repr(e)
    return isinstance(expression, cst.Name) and expression.value in _EXCEPTION_NAMES


def _placeholder_name(expression: cst.BaseExpression, index: int) -> str:
    if isinstance(expression, cst.Name):
        return expression.value
    if isinstance(expression, cst.Attribute):
        return expression.attr.value
    return f"value{index + 1}"
