"""The rule table: stable codes, never reused (a removed rule stays listed)."""

from __future__ import annotations

from mcplint.rules.base import Rule
from mcplint.rules.mcp000_syntax_error import SyntaxErrorRule
from mcplint.rules.mcp001_bare_error_return import BareErrorReturn
from mcplint.rules.mcp002_raw_exception_raise import RawExceptionRaise
from mcplint.rules.mcp003_error_code_collision import ErrorCodeCollision
from mcplint.rules.mcp004_unknown_error_symbol import UnknownErrorSymbol
from mcplint.rules.mcp005_silent_empty_fallback import SilentEmptyFallback
from mcplint.rules.mcp006_stack_trace_leak import StackTraceLeak
from mcplint.rules.mcp007_protocol_error_from_tool import ProtocolErrorFromTool
from mcplint.rules.mcp008_unmasked_error_details import UnmaskedErrorDetails
from mcplint.rules.mcp009_unused_suppression import UnusedSuppression
from mcplint.rules.mcp010_hidden_partial_failure import HiddenPartialFailure

ALL_RULES: tuple[type[Rule], ...] = (
    SyntaxErrorRule,
    BareErrorReturn,
    RawExceptionRaise,
    ErrorCodeCollision,
    UnknownErrorSymbol,
    SilentEmptyFallback,
    StackTraceLeak,
    ProtocolErrorFromTool,
    UnmaskedErrorDetails,
    UnusedSuppression,
    HiddenPartialFailure,
)
RULES_BY_CODE: dict[str, type[Rule]] = {rule.code: rule for rule in ALL_RULES}
SYNTAX_ERROR = SyntaxErrorRule.code
UNUSED_SUPPRESSION = UnusedSuppression.code
