"""What differs between frameworks in the generated module: imports, the three
exception families and how a tool result is built.

The facts behind each choice are in ``research/mcp_sdk.md`` §2 and §6 and are
proven against the real SDKs by ``tests/sdk/``:

- a raise-style tool error subclasses the framework's ``ToolError`` and never
  the SDK error: mcp 2.x turns an ``MCPError`` raised from a tool into a
  protocol error the model never sees;
- resource and prompt errors subclass the SDK error (``McpError`` carrying an
  ``ErrorData`` on mcp 1.x, ``MCPError(code, message, data)`` on 2.x), which is
  what keeps their code and data on the wire; on fastmcp also its
  ``ResourceError``/``PromptError``, the path fastmcp treats as deliberate;
- a returned tool error is a ``CallToolResult`` built with camelCase keywords on
  mcp 1.x (snake_case ones are silently dropped there) and ``ToolResult(...,
  is_error=True)`` on fastmcp (>= 3.4; fastmcp 2.x cannot carry it).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Framework:
    name: str
    description: str
    imports: str
    tool_result: str  # the `tool_result` method of RegisteredError
    families: str  # the three exception classes
    result_type: str  # what a tool returns: `CallToolResult`, or fastmcp's `ToolResult`
    result_builder: str  # `_call_tool_result(text, payload, is_error)`: every tool result


_MCP1_IMPORTS = """\
from mcp.server.fastmcp.exceptions import ToolError
from mcp.shared.exceptions import McpError
from mcp.types import CallToolResult, ErrorData, TextContent"""

_MCP2_IMPORTS = """\
from mcp.server.mcpserver.exceptions import ToolError
from mcp.shared.exceptions import MCPError
from mcp.types import CallToolResult, ErrorData, TextContent"""

# fastmcp names the SDK error `McpError` on both of its SDK majors (fastmcp 3 only
# imports it there, which `mypy --strict` calls an implicit re-export).
_FASTMCP_IMPORTS = """\
from fastmcp.exceptions import (  # type: ignore[attr-defined,unused-ignore]
    McpError,
)
from fastmcp.exceptions import PromptError, ResourceError, ToolError
from fastmcp.tools import ToolResult
from mcp.types import ErrorData, TextContent"""

_MCP1_TOOL_RESULT = '''\
    def tool_result(self) -> CallToolResult:
        """This error as a tool's ``isError`` result, ``structuredContent`` included.

        FastMCP 1.x validates a returned result against the tool's output
        schema: annotate such a tool ``-> CallToolResult`` (or ``-> dict``), not
        ``-> str`` or a model, whose schemas reject the error payload.
        """
        return _call_tool_result(self.text(), self.tool_payload(), True)'''

_MCP1_RESULT_BUILDER = '''\
def _call_tool_result(
    text: str, payload: dict[str, object], is_error: bool
) -> CallToolResult:
    """The text form, then the JSON of ``payload``, which is also the structured content."""
    # camelCase keywords: mcp 1.x models accept unknown snake_case ones silently.
    return CallToolResult(
        content=[
            TextContent(type="text", text=text),
            TextContent(type="text", text=_json_text(payload)),
        ],
        structuredContent=payload,
        isError=is_error,
    )'''

_MCP2_TOOL_RESULT = '''\
    def tool_result(self) -> CallToolResult:
        """This error as a tool's ``isError`` result, ``structuredContent`` included."""
        return _call_tool_result(self.text(), self.tool_payload(), True)'''

_MCP2_RESULT_BUILDER = '''\
def _call_tool_result(
    text: str, payload: dict[str, object], is_error: bool
) -> CallToolResult:
    """The text form, then the JSON of ``payload``, which is also the structured content."""
    # mcp 2.x's own field names (it accepts the camelCase aliases too, but type
    # checkers only know these); this module cannot import on mcp 1.x, where
    # snake_case keywords would be dropped.
    return CallToolResult(
        content=[
            TextContent(type="text", text=text),
            TextContent(type="text", text=_json_text(payload)),
        ],
        structured_content=payload,
        is_error=is_error,
    )'''

_FASTMCP_TOOL_RESULT = '''\
    def tool_result(self) -> ToolResult:
        """This error as a tool's ``isError`` result, ``structuredContent`` included.

        Needs fastmcp >= 3.4, whose ``ToolResult`` has ``is_error``.
        """
        return _call_tool_result(self.text(), self.tool_payload(), True)'''

_FASTMCP_RESULT_BUILDER = '''\
def _call_tool_result(
    text: str, payload: dict[str, object], is_error: bool
) -> ToolResult:
    """The text form, then the JSON of ``payload``, which is also the structured content."""
    return ToolResult(
        content=[
            TextContent(type="text", text=text),
            TextContent(type="text", text=_json_text(payload)),
        ],
        structured_content=payload,
        is_error=is_error,
    )'''

_MCP1_FAMILIES = '''\
class RegisteredToolError(RegisteredError, ToolError):
    """Raise-style tool error: FastMCP 1.x sends only ``Error executing tool
    <name>: <text()>`` as an ``isError`` result (the text form keeps code, hints
    and recovery; ``data`` is lost); return ``.tool_result()`` instead where the
    structure matters."""

    def __init__(self, wire: WireError) -> None:
        ToolError.__init__(self, _text_form(wire))
        self._wire = wire

    def __str__(self) -> str:
        # What the framework sends to the model: the text form, code and hints included.
        return self.text()


class RegisteredResourceError(RegisteredError, McpError):
    """A resource's error: the low-level ``Server`` sends code and data intact;
    FastMCP 1.x re-raises every resource error as code 0 with a prefixed
    message."""

    def __init__(self, wire: WireError) -> None:
        McpError.__init__(self, _error_data(wire))
        self._wire = wire


class RegisteredPromptError(RegisteredError, McpError):
    """A prompt's error: the low-level ``Server`` sends code and data intact;
    FastMCP 1.x re-raises every prompt error as code 0 with a prefixed message."""

    def __init__(self, wire: WireError) -> None:
        McpError.__init__(self, _error_data(wire))
        self._wire = wire'''

_MCP2_FAMILIES = '''\
class RegisteredToolError(RegisteredError, ToolError):
    """Raise-style tool error: an ``isError`` result with ``text()`` only.

    Deliberately not an ``MCPError``: MCPServer sends an ``MCPError`` raised by a
    tool as a protocol error, which the model never sees.
    """

    def __init__(self, wire: WireError) -> None:
        ToolError.__init__(self, _text_form(wire))
        self._wire = wire

    def __str__(self) -> str:
        # What the framework sends to the model: the text form, code and hints included.
        return self.text()


class RegisteredResourceError(RegisteredError, MCPError):
    """A resource's error, sent as a JSON-RPC error with its code and data."""

    def __init__(self, wire: WireError) -> None:
        MCPError.__init__(self, wire["code"], wire["message"], wire["data"])
        self._wire = wire


class RegisteredPromptError(RegisteredError, MCPError):
    """A prompt's error, sent as a JSON-RPC error with its code and data."""

    def __init__(self, wire: WireError) -> None:
        MCPError.__init__(self, wire["code"], wire["message"], wire["data"])
        self._wire = wire'''

# fastmcp runs on mcp 1.x (fastmcp 3) and 2.x (fastmcp 4), whose SDK error
# constructors differ: set the `error` attribute both read instead of calling one.
_FASTMCP_FAMILIES = '''\
class RegisteredToolError(RegisteredError, ToolError):
    """Raise-style tool error: fastmcp sends ``text()``, unprefixed and even with
    ``mask_error_details``, as an ``isError`` result (without ``data``)."""

    def __init__(self, wire: WireError) -> None:
        ToolError.__init__(self, _text_form(wire))
        self._wire = wire

    def __str__(self) -> str:
        # What the framework sends to the model: the text form, code and hints included.
        return self.text()


class RegisteredResourceError(RegisteredError, McpError, ResourceError):
    """A resource's error: the SDK error keeps its code and data on the wire."""

    def __init__(self, wire: WireError) -> None:
        ResourceError.__init__(self, wire["message"])
        self.error = _error_data(wire)
        self._wire = wire


class RegisteredPromptError(RegisteredError, McpError, PromptError):
    """A prompt's error: the SDK error keeps its code and data on the wire."""

    def __init__(self, wire: WireError) -> None:
        PromptError.__init__(self, wire["message"])
        self.error = _error_data(wire)
        self._wire = wire'''

# A low-level server imports neither FastMCP nor MCPServer, and its `mcp>=1` may resolve
# to either major: the module imports only what both provide (`mcp.types`, the SDK error
# under its name of each major) and builds results from the wire names, which mcp 1.x's
# fields and mcp 2.x's aliases both accept.
_LOWLEVEL_IMPORTS = """\
from mcp.types import CallToolResult, ErrorData

try:  # mcp 2.x names the SDK error MCPError, mcp 1.x McpError
    from mcp.shared.exceptions import (  # type: ignore[attr-defined,unused-ignore]
        MCPError as SdkError,
    )
except ImportError:
    from mcp.shared.exceptions import (  # type: ignore[attr-defined,no-redef,unused-ignore]
        McpError as SdkError,
    )"""

_LOWLEVEL_TOOL_RESULT = '''\
    def tool_result(self) -> CallToolResult:
        """This error as a tool's ``isError`` result, ``structuredContent`` included:
        what a low-level ``call_tool`` handler returns (a raise loses the code)."""
        return _call_tool_result(self.text(), self.tool_payload(), True)'''

_LOWLEVEL_RESULT_BUILDER = '''\
def _call_tool_result(
    text: str, payload: dict[str, object], is_error: bool
) -> CallToolResult:
    """The text form, then the JSON of ``payload``, which is also the structured content."""
    # By the wire names: mcp 1.x's field names and mcp 2.x's aliases alike.
    return CallToolResult.model_validate(
        {
            "content": [
                {"type": "text", "text": text},
                {"type": "text", "text": _json_text(payload)},
            ],
            "structuredContent": payload,
            "isError": is_error,
        }
    )'''

# The SDK error's constructor differs between majors: set the `error` both read instead.
_LOWLEVEL_FAMILIES = '''\
class RegisteredToolError(RegisteredError):
    """Raise-style tool error: a low-level server sends its text as an ``isError``
    result on mcp 1.x and a JSON-RPC -32603 on mcp 2.x; return ``.tool_result()``."""

    def __init__(self, wire: WireError) -> None:
        Exception.__init__(self, _text_form(wire))
        self._wire = wire

    def __str__(self) -> str:
        # What mcp 1.x sends to the model: the text form, code and hints included.
        return self.text()


class RegisteredResourceError(
    RegisteredError, SdkError  # type: ignore[misc,unused-ignore]
):
    """A resource's error: the low-level server sends its code and data intact."""

    def __init__(self, wire: WireError) -> None:
        Exception.__init__(self, wire["message"])
        self.error = _error_data(wire)
        self._wire = wire


class RegisteredPromptError(
    RegisteredError, SdkError  # type: ignore[misc,unused-ignore]
):
    """A prompt's error: the low-level server sends its code and data intact."""

    def __init__(self, wire: WireError) -> None:
        Exception.__init__(self, wire["message"])
        self.error = _error_data(wire)
        self._wire = wire'''

FRAMEWORKS: dict[str, Framework] = {
    "mcp1": Framework(
        "mcp1",
        "mcp 1.x, mcp.server.fastmcp",
        _MCP1_IMPORTS,
        _MCP1_TOOL_RESULT,
        _MCP1_FAMILIES,
        "CallToolResult",
        _MCP1_RESULT_BUILDER,
    ),
    "mcp2": Framework(
        "mcp2",
        "mcp 2.x, mcp.server.mcpserver",
        _MCP2_IMPORTS,
        _MCP2_TOOL_RESULT,
        _MCP2_FAMILIES,
        "CallToolResult",
        _MCP2_RESULT_BUILDER,
    ),
    "fastmcp": Framework(
        "fastmcp",
        "fastmcp >= 3.4",
        _FASTMCP_IMPORTS,
        _FASTMCP_TOOL_RESULT,
        _FASTMCP_FAMILIES,
        "ToolResult",
        _FASTMCP_RESULT_BUILDER,
    ),
    "lowlevel": Framework(
        "lowlevel",
        "mcp 1.x or 2.x, low-level Server",
        _LOWLEVEL_IMPORTS,
        _LOWLEVEL_TOOL_RESULT,
        _LOWLEVEL_FAMILIES,
        "CallToolResult",
        _LOWLEVEL_RESULT_BUILDER,
    ),
}
