"""Shapes for MCP003's twin (tests/port_checks/rules.py): where `ast` and LibCST's trees differ
in what the rule reads, with a registry beside it."""

# The shapes are the point.
# ruff: noqa
# fmt: off

import enum
from enum import IntEnum

from mcp.shared.exceptions import McpError
from mcp.types import ErrorData
from mcp import MCPError
from mcp.types import JSONRPCError

ERROR_A = 1001
ERROR_B = 1001
ERROR_NEG = -32001
ERROR_POS = +0
ERROR_TWICE = --5
ERROR_BOOL = True
ERROR_TUPLE = (-32050, "Too bad")
ERROR_STAR = (*ERROR_TUPLE, 1)
ERROR_ANN: int = 0
CODE_X = CODE_Y = 2001
ERROR_TEXT = "a" "b"
ERROR_TEXT_TOO = "ab"
ERROR_TEXT_AGAIN = "ab"
NOTE_NOT_FOUND = 2002
NOTE_LOCKED = "2008"
E_ONE = 7; E_TWO = 7
MAX_ERRORS = 0


class ErrorCodes: A_ERROR = 1; B_ERROR = 1; c = 0


class Bases(*[object]):
    pass


class Table(IntEnum, *(), metaclass=type):
    NOT_FOUND = 5
    GONE = 5


class ErrorCode(enum.IntEnum):
    ONE = 1
    UNO = 1
    _hidden = 1
    NOTE_NOT_FOUND = 1

    class Nested:
        code = 0
        ERRNO = -32000


class TextErrors(enum.Enum):
    SPLIT = "not" "found"
    WHOLE = "notfound"
    BYTES = b"notfound"
    AGAIN = b"notfound"


class AppError(Exception):
    code = 1001


class ChildError(AppError):
    code = 1001


class OtherError(*[Exception]):
    code = 1001
    error_code: int = 3


class Thing(*ERRORS):
    code = 1001


class ErrorList:
    ERRORS = [{"code": 0}]


def payloads(rest, args, kw):
    a = {"error": {"code": 0, "message": "x"}}
    b = {"errors": [{"code": -32000}, *rest, {"code": 1}]}
    c = {"code": -32001, "error": "x"}
    d = {**rest, "code": 0, "error": "y"}
    e = {"co" "de": 0, "error": "z"}
    f = JSONRPCError(error={"code": 9999})
    g = {"error": [*[{"code": 3}]]}
    h = {"errors": ({"code": 4},)}
    i = {"err" "or": {"code": 5}}
    j = {"error": {"code": -(6)}}
    k = {"error": {"code": True}}
    l = {b"error": {"code": 7}}
    m = {"errors": [*{"code": 33}]}
    return a, b, c, d, e, f, g, h, i, j, k, l, m


def calls(args, kw):
    ErrorData(code=0, message="x")
    ErrorData(0, message="x")
    McpError(-32000)
    MCPError(*args)
    MCPError(**kw)
    MCPError(code=5)
    MCPError(message="x", code=-32050)
    MCPError(2001)
    MCPError(message="x", *5)
    MCPError(message="x", *[5], code=6)
    JSONRPCError(error={"code": -32099})
