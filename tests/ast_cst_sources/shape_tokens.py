"""What a finding's shape reads (analysis/shape.py and its `ast` twin): literal tokens as written
(prefixes, quotes, concatenations across lines and comments, f-string parts and specs), the
wrappers and punctuation nodes LibCST's walk visits (brackets, a slice's colons, an import's
dots, a same-line suite's whitespace, an or-pattern's bar, a mapping pattern's trailing comma),
and what the builder reads from the text (an `elif`, statements a ';' joins, a tuple's
parentheses in a subscript, a sequence pattern's). Not run: it is only parsed."""

import os.path as osp
import sys
from typing import Any

from ... import helpers
from ..pkg.sub import (
    first,
    second,
)
from . import sibling

NAMES = (osp, sys, helpers, first, second, sibling)
ACCENTED = "é" "ü"  # concatenated, with text that is not ASCII before the next literals
RAW_BYTES = b"a" b'b' Rb"raw" BR'x'
SPREAD = ("one"
          # a comment between two tokens
          'two' r"three\"" )
NUMBERS = (1_000 + 0x1F - 1.5e3 * 2j + -1, ..., 0o17, 1e-3, 10J)


def literals(x: Any, y: Any, width: int, prec: int, d: dict[str, Any]) -> tuple[Any, ...]:
    z = f"{x!r:>{width}.{prec}} {{literal}} \n {y}" f'{x}' "plain" f"{'nested' + f'{x}'}"
    w = f"{1}{1}{x.y}{x.y} {'s'}{'s'}"
    a = f"1 {1}" f"x{x}" f"{d['k']}" f"{x:{'>'}10}" f"{x != y}" f"{(lambda: 1)()}" f"{ {'a': 1}['a'] }"
    b = f"é{1.5}ü{'ß'}" \
        "tail" \
        ""
    c = (f"{x}"  # a comment
         f"{y:%Y-%m-%d}"
         )
    e = rf"\d{x}{{" U"u"  # noqa: UP025
    f = f"{x!r}" f"{x!a:}" f"{x:{y}{z}}" "\N{BULLET} {x}" f"{'}'}" f'{"{"}' f'{x:{{}}}'
    g = f"""
multi {x}
line {y!s:{z}}
"""
    return z, w, a, b, c, e, f, g


def displays(a: Any, b: Any, s: list[Any], d: dict[str, Any], v: Any) -> tuple[Any, ...]:
    slices = a[1:2], a[::3], a[1:], a[:, 1], a[(1, 2)], a[(1), 2], a[()], a[1, 2:3]
    made = {**d, "k": v}, {1, *s}, [*s, 1], (), (1,), [i for i in s if i if not i]
    comprehended = {i: j for i, j in s}, {i for i in s}, (i for i in s for j in i)
    pick = lambda a, /, b=1, *c, d, e=2, **f: (a, b)  # noqa: E731
    keyword = lambda *, k: k  # noqa: E731
    called = pick(*a, b, k=1, *s, **d)(1)["x"].y(a for a in s), "".join(a)[0](b), a.b.c(d).e  # noqa: B026
    tests = a < b <= s != d is not v not in a, a and b and s or d, not a, -b, ~s, a if b else s
    del a, slices[0]
    return slices, made, comprehended, keyword, called, tests


def statements(a: Any, b: Any, c: Any, s: Any, values: list[Any]) -> Any:
    global ACCENTED
    ACCENTED = ACCENTED.upper()
    if a: values.append(1); values.append(2)
    elif b:
        pass
    else:
        if c:
            pass
    if a:
        pass
    else:
        if b: pass
        else: values.append(c)
    for item in s: values.append(item)
    else: pass
    while a:
        break
    else:
        values.clear()
    try: values.pop()
    except (KeyError, IndexError) as error: raise RuntimeError(a) from error
    except ValueError: raise
    else: pass
    finally: pass
    with (open(a) as first, open(b) as second,):
        values.append((first, second))
    assert a, "msg"
    assert b
    x: int = 1
    y: "str"  # noqa: UP037, F842
    x += 1; return x, a


async def generators(a: Any, s: Any, h: Any) -> Any:
    async with a as (b, c), s:
        pass
    async for item in s: yield item
    (w := await h)
    yield [i async for i in s], w, b, c


def nested() -> Any:
    value = 0

    def inner() -> Any:
        nonlocal value
        value += 1
        return value

    return inner


def produced(g: Any) -> Any:
    r = (yield), (yield g)
    yield from g
    return r


@staticmethod
@sys.modules.get("x", {}).get
async def decorated(a: int, /, b: str = "x", *args: int, c: Any = None, d: bool = True, **kwargs: Any) -> "Any":
    return a, b, args, c, d, kwargs


class Keyed(dict, *NAMES[:0], metaclass=type, **{}): x = 1  # noqa: UP050
class Empty(): pass  # noqa: UP039
class Plain:
    pass


def patterns(x: Any, Point: Any) -> Any:
    match x:
        case {"a": (1), **rest,}: return rest
        case {"a": 1, **rest}: return rest
        case {**rest}: return rest
        case {}: pass
        case Point(1, y=2, z=(3)): pass
        case [1, *_] | (2 | 3) as k: return k
        case None | True | -1 | 1+2j | "s" "t" | osp.sep: pass
        case ((a, b), c): return a, b, c
        case [a], b: return a, b
        case (a), b: return a, b
        case _ if x > 1: pass
    print(x if Point else None, sep="")
