"""What a real MCP client receives from the generated helpers, on each real SDK.

For every stack (sdk_venvs.STACKS) the probe (probe.py) runs in that stack's
venv: tiny servers in-process, the SDK's own client over in-memory streams, no
mocks. ``EXPECTED`` pins what each server delivered for each case. Where an SDK
cannot carry the structure, the expectation says what it does instead, and why:

- **mcp 1.x FastMCP** re-raises every resource and prompt exception as a plain
  error (``mcp/server/fastmcp/server.py``: ``ResourceError(str(e))`` and
  ``ValueError(str(e))``), which the session sends as code 0 with a prefixed
  message: our code and ``data`` are lost (research/mcp_sdk.md §6, known gap).
  A raised tool error arrives as ``Error executing tool <name>: <text form>``.
  A returned ``tool_result()`` is validated against the tool's output schema:
  from a ``-> str`` tool it fails (``Field required``) and only text remains.
- **mcp 2.x MCPServer** prefixes a raised ``ToolError`` the same way; resources
  and prompts keep code and data.
- **mcp 2.x low-level Server** does not turn a tool's exception into an
  ``isError`` result at all: on a 2026-07-28 connection the client gets
  ``-32603 Internal server error`` (tools there must *return* the error).
- **fastmcp 3.4 / 4.x** (run with ``mask_error_details=True``) send a raised
  ``ToolError`` unprefixed and keep code and data for resources and prompts.

Every error's text is its text form (``text()``: ``SYMBOL (code): message``, then
``Hint:``, ``Recovery:`` and ``User message:`` lines): the first content block of a
returned ``tool_result()`` (the JSON of ``structuredContent`` follows), and what a
raised tool error sends. The ``tool_*_envelope_error`` cases carry the registry's
recovery, hints and user message and a per-call hint and delay.

In every case the secret text of the exception each handler caught first, any
traceback and the exception's type stay off the wire.
"""

from __future__ import annotations

import ast
import json
import re
from typing import Any

import pytest
from sdk_harness import PROBE_SCRIPT, run_in_venv, run_probe, write_helpers
from sdk_venvs import STACKS, STACKS_BY_NAME

pytestmark = pytest.mark.slow

STRUCTURED_ERROR = {
    "error": {
        "code": 4001,
        "message": "Widget w-1 not found.",
        "domain": "widgets",
        "symbol": "WIDGETS_NOT_FOUND",
        "retryable": False,
        "details": "looked in the main store",
        "metadata": {"widgetId": "w-1"},
    }
}
# The text form (the generated module's `text()`): what a client that shows only text gives the model.
NOT_FOUND_TEXT = "WIDGETS_NOT_FOUND (4001): Widget w-1 not found.\nRecovery: check-input."
LOCKED = {
    "error": {
        "code": 4004,
        "message": "Widget w-7 is pinned.",
        "domain": "widgets",
        "symbol": "WIDGETS_LOCKED",
        "retryable": False,
        "details": None,
        "metadata": {"widgetId": "w-7"},
        "recovery": "try-alternative",
        "hints": ["Unpin widget w-7 first, or work on a copy.", "A copy keeps the history."],
        "userMessage": "Widget w-7 is pinned; unpin it in the app.",
    }
}
LOCKED_TEXT = (
    "WIDGETS_LOCKED (4004): Widget w-7 is pinned.\n"
    "Hint: Unpin widget w-7 first, or work on a copy.\n"
    "Hint: A copy keeps the history.\n"
    "Recovery: try-alternative.\n"
    "User message: Widget w-7 is pinned; unpin it in the app."
)
BUSY_TEXT = "WIDGETS_BUSY (4005): The widget store is busy.\nRecovery: retry-later, after 250 ms."
DOWN_TEXT = "WIDGETS_BACKEND_DOWN (4002): The widget store is unavailable.\nRecovery: retry-later."
LOCKED_9 = (4004, "Widget w-9 is pinned.", "WIDGETS_LOCKED", False, {"widgetId": "w-9"})
LOCKED_9_ENVELOPE = {
    "recovery": "try-alternative",
    "hints": ["Unpin widget w-9 first, or work on a copy."],
    "userMessage": "Widget w-9 is pinned; unpin it in the app.",
}
NOT_FOUND_2 = (4001, "Widget w-2 not found.", "WIDGETS_NOT_FOUND", False, {"widgetId": "w-2"})
NOT_FOUND_3 = (4001, "Widget w-3 not found.", "WIDGETS_NOT_FOUND", False, {"widgetId": "w-3"})
BACKEND_DOWN = (4002, "The widget store is unavailable.", "WIDGETS_BACKEND_DOWN", True, None)
DOWN = BACKEND_DOWN[1]

# Expectations: ("structured-result",), ("text-result", text), ("registered-error", fields),
# ("registered-error-with-stack", fields), ("plain-error", code, message), ("validation-failure",).
RETURNED = ("structured-result",)
RETURNED_ENVELOPE = ("structured-envelope",)
INTACT_RESOURCE_AND_PROMPT = {
    "resource_raises_error": ("registered-error", NOT_FOUND_2),
    "resource_raises_verbose_error": ("registered-error-with-stack", BACKEND_DOWN),
    "prompt_raises_error": ("registered-error", NOT_FOUND_3),
    "resource_raises_envelope_error": ("registered-error-with-envelope", LOCKED_9, LOCKED_9_ENVELOPE),
}
EXPECTED: dict[tuple[str, str], dict[str, tuple[Any, ...]]] = {
    ("mcp1", "high-level"): {
        "tool_returns_error": RETURNED,
        "tool_returns_error_from_dict_tool": RETURNED,
        "tool_returns_error_from_str_tool": ("validation-failure",),
        "tool_raises_error": ("text-result", f"Error executing tool tool_raises_error: {DOWN_TEXT}"),
        "resource_raises_error": ("plain-error", 0, "Error reading resource probe://widget: Widget w-2 not found."),
        "resource_raises_verbose_error": ("plain-error", 0, f"Error reading resource probe://verbose: {DOWN}"),
        "prompt_raises_error": ("plain-error", 0, "Error rendering prompt prompt_raises_error: Widget w-3 not found."),
        "tool_returns_envelope_error": RETURNED_ENVELOPE,
        "tool_raises_envelope_error": (
            "text-result",
            f"Error executing tool tool_raises_envelope_error: {BUSY_TEXT}",
        ),
        "resource_raises_envelope_error": (
            "plain-error",
            0,
            "Error reading resource probe://locked: Widget w-9 is pinned.",
        ),
    },
    ("mcp1", "low-level"): {
        "tool_returns_error": RETURNED,
        "tool_raises_error": ("text-result", DOWN_TEXT),
        "tool_returns_envelope_error": RETURNED_ENVELOPE,
        "tool_raises_envelope_error": ("text-result", BUSY_TEXT),
        **INTACT_RESOURCE_AND_PROMPT,
    },
    ("mcp2", "high-level"): {
        "tool_returns_error": RETURNED,
        "tool_returns_error_from_dict_tool": RETURNED,
        "tool_returns_error_from_str_tool": RETURNED,
        "tool_raises_error": ("text-result", f"Error executing tool tool_raises_error: {DOWN_TEXT}"),
        "tool_returns_envelope_error": RETURNED_ENVELOPE,
        "tool_raises_envelope_error": (
            "text-result",
            f"Error executing tool tool_raises_envelope_error: {BUSY_TEXT}",
        ),
        **INTACT_RESOURCE_AND_PROMPT,
    },
    ("mcp2", "low-level"): {
        "tool_returns_error": RETURNED,
        "tool_raises_error": ("plain-error", -32603, "Internal server error"),
        "tool_returns_envelope_error": RETURNED_ENVELOPE,
        "tool_raises_envelope_error": ("plain-error", -32603, "Internal server error"),
        **INTACT_RESOURCE_AND_PROMPT,
    },
}
for _fastmcp in ("fastmcp3", "fastmcp4"):
    EXPECTED[(_fastmcp, "high-level")] = {
        "tool_returns_error": RETURNED,
        "tool_returns_error_from_dict_tool": RETURNED,
        "tool_returns_error_from_str_tool": RETURNED,
        "tool_raises_error": ("text-result", DOWN_TEXT),
        "tool_returns_envelope_error": RETURNED_ENVELOPE,
        "tool_raises_envelope_error": ("text-result", BUSY_TEXT),
        **INTACT_RESOURCE_AND_PROMPT,
    }

# A registry error raised in place of a builtin (`.caught_as(ValueError)`, what `migrate`
# writes): on the wire exactly the plain raise; to a caller's `except ValueError`, caught.
CAUGHT = ("caught-result", "skipped: WIDGETS_NOT_FOUND (4001): Widget w-4 not found.\nRecovery: check-input.")
for (_stack, _server), _cases in EXPECTED.items():
    _plain = _cases["tool_raises_error"]
    _cases["tool_raises_error_caught_as_builtin"] = tuple(
        part.replace("tool_raises_error:", "tool_raises_error_caught_as_builtin:") if isinstance(part, str) else part
        for part in _plain
    )
    _cases["tool_catches_builtin"] = CAUGHT

# A batch tool's `BatchResult`: every stack's client gets the same text and structure, an
# isError result only when no item was applied.
BATCH_ALL_APPLIED = (
    False,
    "2 items: 2 applied, 0 failed, 0 skipped.",
    {
        "total": 2,
        "applied": 2,
        "failed": 0,
        "skipped": 0,
        "items": [
            {"index": 0, "status": "applied", "result": {"id": "w-1"}},
            {"index": 1, "status": "applied", "result": {"id": "w-2"}},
        ],
    },
)
BATCH_SOME_FAILED = (
    False,
    "3 items: 1 applied, 1 failed, 1 skipped.\n"
    "[1] failed: WIDGETS_NOT_FOUND (4001): Widget w-2 not found.\n"
    "  Recovery: check-input.\n"
    "[2] skipped: Not attempted after item 1 failed.",
    {
        "total": 3,
        "applied": 1,
        "failed": 1,
        "skipped": 1,
        "items": [
            {"index": 0, "status": "applied"},
            {
                "index": 1,
                "status": "failed",
                "symbol": "WIDGETS_NOT_FOUND",
                "code": 4001,
                "message": "Widget w-2 not found.",
                "retryable": False,
                "recovery": "check-input",
            },
            {"index": 2, "status": "skipped", "message": "Not attempted after item 1 failed."},
        ],
        "result": {"saved": ["w-1"]},
    },
)
BATCH_ALL_FAILED = (
    True,
    "2 items: 0 applied, 2 failed, 0 skipped.\n"
    '["a"] failed: WIDGETS_BUSY (4005): The widget store is busy.\n'
    "  Recovery: retry-later, after 1500 ms.\n"
    '["b"] failed: WIDGETS_LOCKED (4004): Widget w-7 is pinned.\n'
    "  Hint: Unpin widget w-7 first, or work on a copy.\n"
    "  Recovery: try-alternative.\n"
    "  User message: Widget w-7 is pinned; unpin it in the app.",
    {
        "total": 2,
        "applied": 0,
        "failed": 2,
        "skipped": 0,
        "items": [
            {
                "key": "a",
                "status": "failed",
                "symbol": "WIDGETS_BUSY",
                "code": 4005,
                "message": "The widget store is busy.",
                "retryable": True,
                "recovery": "retry-later",
                "retryAfterMs": 1500,
            },
            {
                "key": "b",
                "status": "failed",
                "symbol": "WIDGETS_LOCKED",
                "code": 4004,
                "message": "Widget w-7 is pinned.",
                "retryable": False,
                "recovery": "try-alternative",
                "hints": ["Unpin widget w-7 first, or work on a copy."],
            },
        ],
    },
)
BATCH_CASES = {
    "tool_batch_all_applied": ("batch-result", *BATCH_ALL_APPLIED),
    "tool_batch_some_failed": ("batch-result", *BATCH_SOME_FAILED),
    "tool_batch_all_failed": ("batch-result", *BATCH_ALL_FAILED),
}
# The errors each batch case creates (the metrics count them).
BATCH_ERRORS = {"tool_batch_all_applied": 0, "tool_batch_some_failed": 1, "tool_batch_all_failed": 2}
for _cases in EXPECTED.values():
    _cases.update(BATCH_CASES)

CASES = [(stack, server, case) for (stack, server), cases in EXPECTED.items() for case in cases]
SANITIZED_FRAME = re.compile(r"^\w+ \((?!/)[^()]+:\d+\)$")  # `function (relative/file.py:12)`

_reports: dict[str, tuple[dict[str, Any], str]] = {}


@pytest.fixture(scope="module")
def probe(tmp_path_factory):
    """``probe(stack)``: the stack's report, run once per stack and module."""

    def report(stack: str) -> tuple[dict[str, Any], str]:
        if stack not in _reports:
            _reports[stack] = run_probe(STACKS_BY_NAME[stack], tmp_path_factory.mktemp(stack))
        return _reports[stack]

    return report


@pytest.mark.parametrize(("stack", "server", "case"), CASES, ids=["-".join(case) for case in CASES])
def test_what_the_client_receives(probe, stack, server, case):
    report, _ = probe(stack)
    record = report["servers"][server]["cases"][case]
    expectation = EXPECTED[(stack, server)][case]
    CHECKS[expectation[0]](record, *expectation[1:])


@pytest.mark.parametrize("stack", [stack.name for stack in STACKS])
def test_every_case_is_pinned(probe, stack):
    report, _ = probe(stack)
    for server, result in report["servers"].items():
        assert set(result["cases"]) == set(EXPECTED[(stack, server)])


@pytest.mark.parametrize("stack", [stack.name for stack in STACKS])
def test_no_exception_text_or_traceback_leaks(probe, stack):
    _, stdout = probe(stack)
    for leak in ("secret.db", "Traceback", "ValueError", "fail_with_secret", 'File "'):
        assert leak not in stdout


@pytest.mark.parametrize("stack", [stack.name for stack in STACKS])
def test_the_probed_versions_are_the_pinned_ones(probe, stack):
    report, _ = probe(stack)
    pins = dict(pin.split("==") for pin in STACKS_BY_NAME[stack].pins)
    assert {name: version for name, version in report["versions"].items() if version} == pins


@pytest.mark.parametrize("stack", [stack.name for stack in STACKS])
def test_metrics_count_every_error_created(probe, stack):
    """Each case creates exactly one error through a helper (a batch case as many as it has
    failed items); MCP_ERROR_METRICS=1 counts them."""
    report, _ = probe(stack)
    cases = [case for result in report["servers"].values() for case in result["cases"]]
    created = sum(BATCH_ERRORS.get(case, 1) for case in cases)
    stats = report["error_stats"]
    assert stats["total"] == created
    assert stats["byDomain"] == {"widgets": created}
    assert sum(stats["bySymbol"].values()) == sum(stats["byCode"].values()) == created
    assert set(stats["byCode"]) == {"4001", "4002", "4004", "4005"}


@pytest.mark.parametrize("stack", ["mcp1", "mcp2"])
def test_low_level_helpers_import_and_answer_the_same_on_both_majors(tmp_path, stack):
    """A low-level server's `mcp>=1` may resolve to either major: its helpers (`lowlevel`)
    import on both, bring in no high-level framework, and answer exactly as that major's own."""
    sdk = STACKS_BY_NAME[stack]
    helpers = write_helpers(sdk, tmp_path, framework="lowlevel")
    imported = {
        node.module for node in ast.walk(ast.parse(helpers.read_text())) if isinstance(node, ast.ImportFrom)
    }
    assert imported == {"__future__", "collections", "typing", "mcp.types", "mcp.shared.exceptions"}
    completed = run_in_venv(sdk, str(PROBE_SCRIPT), f"{stack}-lowlevel", str(tmp_path), cwd=tmp_path)
    assert completed.returncode == 0, completed.stderr[-4000:]
    report = json.loads(completed.stdout)
    records = report["servers"]["low-level"]["cases"]
    assert set(records) == set(EXPECTED[(stack, "low-level")])
    for case, expectation in EXPECTED[(stack, "low-level")].items():
        CHECKS[expectation[0]](records[case], *expectation[1:])


# -- checks ---------------------------------------------------------------------------------
def structured_result(record: dict[str, Any], structured: dict[str, Any] = STRUCTURED_ERROR, text: str = NOT_FOUND_TEXT) -> None:
    """The structure in ``structuredContent``; the content is the text form, then the same structure as JSON."""
    assert record["kind"] == "result"
    assert record["isError"] is True
    assert record["structuredContent"] == structured
    first, second = record["content"]
    assert first == text
    assert json.loads(second) == structured


def text_result(record: dict[str, Any], text: str) -> None:
    assert record["kind"] == "result"
    assert record["isError"] is True
    assert record["content"] == [text]
    assert record["structuredContent"] is None


def caught_result(record: dict[str, Any], text: str) -> None:
    """The tool's own `except` caught the error and answered with a success."""
    assert record["kind"] == "result"
    assert record["isError"] is False
    assert record["content"] == [text]


def validation_failure(record: dict[str, Any]) -> None:
    """The tool's output schema rejected the error payload: an isError result
    whose text is the validation error, without structured content."""
    assert record["kind"] == "result"
    assert record["isError"] is True
    assert record["structuredContent"] is None
    assert "validation error" in record["content"][0] and "Field required" in record["content"][0]


def registered_error(
    record: dict[str, Any],
    fields: tuple[Any, ...],
    envelope: dict[str, Any] | None = None,
    *,
    stack: bool = False,
) -> None:
    code, message, symbol, retryable, metadata = fields
    assert record["kind"] == "error"
    assert (record["code"], record["message"]) == (code, message)
    data = dict(record["data"])
    frames = data.pop("stack", None)
    expected = {"domain": "widgets", "symbol": symbol, "retryable": retryable, "details": None}
    if metadata:
        expected["metadata"] = metadata
    expected.update(envelope or {})
    assert data == expected
    if stack:  # MCP_ERRORS_VERBOSE=2: the two innermost frames, sanitized
        assert len(frames) == 2
        assert frames[0].startswith("resource_raises_verbose_error (probe.py:")
        assert all(SANITIZED_FRAME.match(frame) for frame in frames), frames
    else:
        assert frames is None


def batch_result(record: dict[str, Any], is_error: bool, text: str, structured: dict[str, Any]) -> None:
    """The summary text, then the same structure as JSON; ``isError`` only when nothing succeeded."""
    assert record["kind"] == "result"
    assert record["isError"] is is_error
    assert record["structuredContent"] == structured
    first, second = record["content"]
    assert first == text
    assert json.loads(second) == structured


def plain_error(record: dict[str, Any], code: int, message: str) -> None:
    assert record == {"kind": "error", "code": code, "message": message, "data": None}


CHECKS = {
    "structured-result": structured_result,
    "structured-envelope": lambda record: structured_result(record, LOCKED, LOCKED_TEXT),
    "text-result": text_result,
    "caught-result": caught_result,
    "validation-failure": validation_failure,
    "registered-error": registered_error,
    "registered-error-with-envelope": registered_error,
    "registered-error-with-stack": lambda record, fields: registered_error(record, fields, stack=True),
    "plain-error": plain_error,
    "batch-result": batch_result,
}
