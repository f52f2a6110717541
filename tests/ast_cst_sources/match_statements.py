"""Match statements of every shape LibCST has a node for, for tests/test_ast_cst.py: the tree
built from `ast` must be LibCST's, node for node, each pattern placed where LibCST places it.
Not run: it is only parsed."""

import enum
import re
from dataclasses import dataclass


class Color(enum.Enum):
    RED = 1
    GREEN = 2


@dataclass
class Point:
    x: int
    y: int


class mod:  # a class pattern's class reached through an attribute
    Point = Point


def literals(command):
    match command:
        case 0:
            return "zero"
        case -1 | 1.5 | -2.5e3 | 0x1F:
            return "numbers"
        case 1 + 2j | -1 - 2j | 3j | -4j:
            return "complex"
        case "text" | b"bytes" | r"raw\d":
            return "strings"
        case "implicitly" "concatenated":
            return "concatenated"
        case None:
            return "none"
        case True | False:
            return "booleans"
        case (None) | ((True)) | ([False]):
            return "parenthesised"
        case Color.RED | Color.GREEN:
            return "values"
        case re.RegexFlag.IGNORECASE:
            return "a value two attributes deep"
        case _:
            return "anything"


def captures(subject, extra):
    match subject:
        case x if x > extra:
            return x
        case (x) if (x):
            return x
        case ((y)) if y:
            return y
        case 1 | 2 as small:
            return small
        case (1 | 2) as small:
            return small
        case (3 as three) | (4 as three):
            return three
        case (5 | (6 | 7)) as nested:
            return nested
        case [_, _] as pair if (total := sum(pair)) > 10:
            return total
        case _ if extra:
            return None


def sequences(subject):
    match subject:
        case []:
            return 0
        case ():
            return 0
        case [a]:
            return a
        case (a,):
            return a
        case [a, b,]:
            return a, b
        case (a, b):
            return a, b
        case a, b, c:
            return a, b, c
        case a, *rest,:
            return a, rest
        case *init, last:
            return init, last
        case [first, *_]:
            return first
        case (*_, last):
            return last
        case (a), b, c, d:
            return a, b, c, d
        case [a], b, c, d, e:
            return a, b, c, d, e
        case ((a, b)), c, d, e, f, g:
            return a, b, c, d, e, f, g
        case ([a, b, c, d, e, f, g, h]):
            return h
        case ((a), b, c, d, e, f, g, h, i):
            return i
        case [(1 | 2), [c, (d, e)], *_]:
            return c, d, e
        case [1, 2] | (3, 4) | [*_, 5]:
            return "or of sequences"
        case (
            first,
            second,
            *others,
        ):
            return first, second, others


def mappings(subject):
    match subject:
        case {}:
            return {}
        case {"key": value}:
            return value
        case {"key": value, **rest}:
            return value, rest
        case {**rest}:
            return rest
        case {**rest,}:
            return rest
        case {1: _,}:
            return 1
        case {"a": 1, **rest,}:
            return rest
        case {None: a, True: b, -1: c, 1 + 2j: d, Color.RED: e, "f" "g": f}:
            return a, b, c, d, e, f
        case {"nested": {"deeper": [x, *_]}, "value": (y)}:
            return x, y
        case {
            "key": value,
            "other": (1 | 2) as other,
            ** rest
        }:
            return value, other, rest


def classes(subject):
    match subject:
        case Point():
            return "any point"
        case Point(0):
            return "positional"
        case Point(0,):
            return "positional, comma"
        case Point(x=0):
            return "keyword"
        case Point(0, y=0,):
            return "both, comma"
        case Point(x=0, y=(1)):
            return "keywords"
        case Point((0), y=[a, *b]):
            return a, b
        case mod.Point(x=Point(x=inner)):
            return inner
        case (Point(x=x) | Point(y=x)) if x:
            return x
        case Point (x = 1, y = 2):
            return "spaced"
        case (Point(x, y)):
            return x, y
        case Point(
            x=1,
            y=Point(x=2, y=3),
        ):
            return "across lines"
        case str() | bytes():
            return "builtins"


def subjects(a, b, c):
    match a, b:
        case 1, 2:
            pass
    match (a, b):
        case (1, 2):
            pass
    match a, b,:
        case _:
            pass
    match *a, b:
        case _:
            pass
    match (a):
        case (1):
            pass
    match(a):
        case(1):
            pass
    match (a) + (b):
        case 1: pass
    match c := a:
        case 1: pass; pass
        case 2: pass;
        case 3:
            pass;
    match a.b(c)[0]:
        case 1:
            pass
        # a comment between cases
        case 2:
            pass  # a comment after a body
        case 3 \
                | 4:
            pass


def nested(a, b):
    match a:
        case 1:
            match b:
                case 2:
                    return 2
                case _:
                    if b:
                        match b:
                            case [x]:
                                return x
        case {"k": [Point(x=1 | 2 as x), *_], **rest} if (rest):
            return x
    return None


def soft_keywords(match, case):
    """`match` and `case` are names wherever they are not a match statement's keywords."""
    match(case)
    match.group(1)
    re.match("x", case)
    print(match, case)
    case = [match, case]
    match = case[0]
    match match:
        case case:
            return match, case
