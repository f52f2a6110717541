"""Shapes where MCP008's twin reads `ast` differently from LibCST's tree
(tests/port_checks/rules.py): the option named where `ast` has text, a call's keywords in
written order, literals that are one constant in `ast` and several tokens in LibCST's tree."""

import os
from typing import Any

from fastmcp import FastMCP

os.environ["FASTMCP_MASK_" "ERROR_DETAILS"] = "1"  # two tokens, neither the variable's name
flags = {"mask_error_" "details": True}


class ByAttribute(FastMCP):
    def __init__(self, name: str, **kwargs: Any) -> None:
        self.mask_error_details = None  # named, and not handled: a false value
        super().__init__(name, **kwargs)


class ByAttributeRead(FastMCP):
    def __init__(self, name: str, config: Any = None, **kwargs: Any) -> None:
        if config.mask_error_details:
            kwargs["extra"] = True
        super().__init__(name, **kwargs)


class ByParameter(FastMCP):
    def __init__(self, name: str, mask_error_details: bool = True, **kwargs: Any) -> None:
        super().__init__(name, **kwargs)


class ByLambdaParameter(FastMCP):
    def __init__(self, name: str, **kwargs: Any) -> None:
        self.choose = lambda mask_error_details: mask_error_details
        super().__init__(name, **kwargs)


class ByMethodName(FastMCP):
    def mask_error_details(self) -> bool:
        return True

    def __init__(self, name: str, **kwargs: Any) -> None:
        super().__init__(name, **kwargs)


class ByClassName(FastMCP):
    class mask_error_details:  # noqa: N801
        pass

    def __init__(self, name: str, **kwargs: Any) -> None:
        super().__init__(name, **kwargs)


class ByImport(FastMCP):
    import settings.mask_error_details  # noqa: F401
    from settings import mask_error_details  # noqa: F401

    def __init__(self, name: str, **kwargs: Any) -> None:
        super().__init__(name, **kwargs)


class ByImportedModule(FastMCP):
    from settings.mask_error_details import value  # noqa: F401

    def __init__(self, name: str, **kwargs: Any) -> None:
        super().__init__(name, **kwargs)


class ByAlias(FastMCP):
    import json as mask_error_details  # noqa: F401

    def __init__(self, name: str, **kwargs: Any) -> None:
        super().__init__(name, **kwargs)


class ByGlobal(FastMCP):
    def __init__(self, name: str, **kwargs: Any) -> None:
        global mask_error_details
        super().__init__(name, **kwargs)


class ByClauseName(FastMCP):
    def __init__(self, name: str, **kwargs: Any) -> None:
        try:
            super().__init__(name, **kwargs)
        except ValueError as mask_error_details:  # noqa: F841
            pass


class ByPattern(FastMCP):
    def __init__(self, name: str, shape: Any = None, **kwargs: Any) -> None:
        match shape:
            case {"a": 1, **mask_error_details}:
                pass
            case [_, *mask_error_details]:
                pass
            case dict(mask_error_details=1):
                pass
            case str() as mask_error_details:  # noqa: F841
                pass
        super().__init__(name, **kwargs)


class ByString(FastMCP):
    def __init__(self, name: str, **kwargs: Any) -> None:
        kwargs.setdefault("mask_error_" "details", True)  # two tokens: not the option
        super().__init__(name, **kwargs)


class ByStringBesideFString(FastMCP):
    def __init__(self, name: str, **kwargs: Any) -> None:
        kwargs.setdefault(f"{name}" "mask_error_details", True)
        super().__init__(name, **kwargs)


class ByFStringText(FastMCP):
    def __init__(self, name: str, **kwargs: Any) -> None:
        kwargs.setdefault(f"mask_error_details{name:>mask_error_details}", True)  # an f-string's text
        super().__init__(name, **kwargs)


class ByStringInField(FastMCP):
    def __init__(self, name: str, **kwargs: Any) -> None:
        kwargs.setdefault(f"{kwargs.get('mask_error_details')}", True)
        super().__init__(name, **kwargs)


class ByKeyword(FastMCP):
    def __init__(self, name: str, **kwargs: Any) -> None:
        super().__init__(name, mask_error_details=False, **kwargs)


class ByClassKeyword(FastMCP, mask_error_details=True):
    def __init__(self, name: str, **kwargs: Any) -> None:
        super().__init__(name, **kwargs)


class Explicit(FastMCP):
    def __init__(self, name: str, **kwargs: Any) -> None:
        FastMCP.__init__(self, name, **kwargs)


for server in (ByAttribute, ByAttributeRead, ByParameter, ByLambdaParameter, ByMethodName, ByClassName, ByImport, ByImportedModule):
    server("x")
ByAlias("x")
ByAttributeRead("x")
ByGlobal("x")
ByClauseName("x")
ByPattern("x")
ByString("x")
ByStringBesideFString("x")
ByFStringText("x")
ByStringInField("x")
ByKeyword("x")
ByClassKeyword("x")
Explicit("x")

settings: dict[str, Any] = {}
FastMCP("a", mask_error_details=False, **settings)
FastMCP("b", **settings, mask_error_details=False)
FastMCP("c", *[], mask_error_details=None)
FastMCP("d", mask_error_details=0)
FastMCP("e", mask_error_details=True if settings else False)
FastMCP[dict]("f")
FastMCP.from_openapi(openapi_spec={}, client=None)
FastMCP.from_fastapi(None, mask_error_details=False)
