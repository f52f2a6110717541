"""The JSON-RPC and MCP error-code bands, once: what MCP003 and the registry checks judge codes by.

JSON-RPC 2.0 reserves -32768..-32000 and defines five codes in it; MCP uses
-32000..-32019 as a legacy band where new codes must not be allocated, reserves
-32020..-32099 for its specification (defining three codes from 2026-07-28) and
retired two codes that must no longer be sent.
"""

from __future__ import annotations

from dataclasses import dataclass

JSONRPC_BAND = (-32768, -32000)
MCP_LEGACY_BAND = (-32019, -32000)
MCP_SPEC_BAND = (-32099, -32020)
MCP_RETIRED_CODES = {-32002: "resource not found", -32042: "URL elicitation required"}
OUTSIDE_THE_BAND = "allocate application codes outside -32768..-32000"


@dataclass(frozen=True)
class SpecCode:
    code: int
    spec: str  # "JSON-RPC" or "MCP"
    title: str
    # Words that show a name or message uses the code with this meaning.
    meaning_words: tuple[str, ...]
    constant: str | None = None  # its name in `mcp.types`


SPEC_CODES: dict[int, SpecCode] = {
    spec_code.code: spec_code
    for spec_code in (
        SpecCode(-32700, "JSON-RPC", "Parse error", ("parse",), "PARSE_ERROR"),
        SpecCode(-32600, "JSON-RPC", "Invalid Request", ("request",), "INVALID_REQUEST"),
        SpecCode(-32601, "JSON-RPC", "Method not found", ("method",), "METHOD_NOT_FOUND"),
        # MCP also sends -32602 for an unknown tool or prompt and (from 2026-07-28) a missing resource.
        SpecCode(
            -32602, "JSON-RPC", "Invalid params",
            ("param", "argument", "invalid", "missing", "unknown", "not found"), "INVALID_PARAMS",
        ),  # fmt: skip
        SpecCode(-32603, "JSON-RPC", "Internal error", ("internal",), "INTERNAL_ERROR"),
        SpecCode(-32020, "MCP", "Header mismatch", ("header",)),
        SpecCode(-32021, "MCP", "Missing required client capability", ("capabilit",)),
        SpecCode(-32022, "MCP", "Unsupported protocol version", ("version",)),
    )
}
CODE_BY_CONSTANT = {spec_code.constant: code for code, spec_code in SPEC_CODES.items() if spec_code.constant}


def in_reserved_band(code: int) -> bool:
    return JSONRPC_BAND[0] <= code <= JSONRPC_BAND[1]


def band_problem(code: int, user: str | None, meaning_text: str) -> str | None:
    """What is wrong with an application sending ``code`` (a non-zero code), or None.

    ``user`` names who sends it (a constant, a registry symbol) for the message, and
    ``meaning_text`` (lower case) shows what it means by it: a spec code is fine when the
    text uses one of its meaning words, or when nothing names the sender.
    """
    if not in_reserved_band(code):
        return None
    if code in SPEC_CODES:
        spec_code = SPEC_CODES[code]
        if user is None or any(word in meaning_text for word in spec_code.meaning_words):
            return None
        return f'code {code} is {spec_code.spec}\'s "{spec_code.title}"; `{user}` does not use it with that meaning'
    if code in MCP_RETIRED_CODES:
        return f"code {code} is a retired MCP spec code ({MCP_RETIRED_CODES[code]}) that must not be sent; {OUTSIDE_THE_BAND}"
    if MCP_LEGACY_BAND[0] <= code <= MCP_LEGACY_BAND[1]:
        return f"code {code} is in MCP's legacy band -32000..-32019, where new codes must not be allocated; {OUTSIDE_THE_BAND}"
    if MCP_SPEC_BAND[0] <= code <= MCP_SPEC_BAND[1]:
        return f"code {code} is in -32020..-32099, reserved for the MCP specification; {OUTSIDE_THE_BAND}"
    return f"code {code} is inside JSON-RPC's reserved band -32768..-32000; {OUTSIDE_THE_BAND}"
