"""Comments between a parenthesis and what it encloses, for tests/test_ast_cst.py: the tree
built from `ast` must count those parentheses as LibCST does, and place each node with them.
The scan for a '(' reads the line above back to where its comment starts: after a '#' in a
string, after a triple-quoted string's line, after a backslash. Not run: it is only parsed."""

# ruff: noqa


def after_an_opening_parenthesis(a, b, c, d, name):
    total = (  # why
        a + b
    )
    named = (  # a name alone
        name
    )
    called = (  # a call
        len(name)
    )
    compared = (  # a comparison
        a < b <= c
    )
    either = (  # a boolean operation
        a or b and c
    )
    negated = (  # a unary operation
        -a
    )
    chosen = (  # a conditional expression
        a if b else c
    )
    listed = (  # a comprehension
        [x for x in a]
    )
    texts = (  # a concatenated string
        "one"
        "two"
    )
    attribute = (  # an attribute
        name.upper
    )
    indexed = (  # a subscript
        d[a]
    )
    awaited = lambda: (  # a lambda's body
        a * b
    )
    return total, named, called, compared, either, negated, chosen, listed, texts, attribute, indexed, awaited


def comment_lines_between(a, b):
    first = (
        # a comment line
        a + b
    )
    second = (
        # two comment lines
        # and a blank one

        a - b
    )
    third = (
# a comment at the line's start
        a * b
    )
    fourth = (  # a comment after the parenthesis
        # and one on its own line
        a / b
    )
    return first, second, third, fourth


def call_arguments(f, a, b):
    f(  # the call's parenthesis: not the argument's
        a + b
    )
    f(  # the argument's own
        (a + b)
    )
    f(
        a,  # a note (
        b
    )
    f(a,  # a comment that ends with a parenthesis after no name: (
      b)
    f(  # a generator expression, the sole argument
        x for x in a
    )
    f(
        x for x in a  # a comment before the call's closing parenthesis
    )
    f(
        x for x in a
        # a comment line before it
    )
    return f(  # a keyword's value
        key=(  # its parentheses
            a
        ),
    )


def nested(a, b, c):
    twice = (  # outer
        (  # inner
            a + b
        )
    )
    thrice = ((  # two on one line
        (
            # and one more
            a * b
        )))
    inner_only = [  # a bracket: not a parenthesis
        (  # this one
            c
        )
    ]
    tuple_first = (  # a tuple's own
        a,
        b,
    )
    element = (
        (  # the first element's
            a
        ),
        b,
    )
    return twice, thrice, inner_only, tuple_first, element


def before_the_closing_parenthesis(a, b):
    one = (
        a + b  # a comment before ')'
    )
    two = (
        a - b
        # a comment line before ')'
    )
    three = ((a * b  # after the inner one
              )  # after the outer one
             )
    return one, two, three


def hashes_in_strings(f, a, b):
    plain = f("#", (
        a + b
    ))
    both = ["#", (  # a comment after a '#' in a string
        a - b
    )]
    escaped = ('\'#', "\"#\\", (  # quotes escaped before the comment
        a * b
    ))
    raw = (r"\"#", r'\\', (  # a raw string's escaped quote
        a / b
    ))
    prefixed = (b"#", f"{a}#{b!r}", rb'#', (  # prefixed strings
        a % b
    ))
    formatted = (f"{a['#']}", (  # a '#' in an f-string's expression
        a ** b
    ))
    hash_only_in_string = ("#" "'", (
        a // b
    ))
    return plain, both, escaped, raw, prefixed, formatted, hash_only_in_string


def strings_spanning_lines(a, b):
    triple = ("""a string
# not a comment: the string's""", (  # the comment
        a + b
    ))
    closed_twice = ('''one''', '''two # not a comment''', (  # a comment
        a - b
    ))
    continued = ("a string \
# not a comment either", (  # the comment
        a * b
    ))
    return triple, closed_twice, continued


def backslashes(a, b):
    continued = 1 + \
        (a + b)
    after_a_continuation = 1 + \
        (  # a comment on a continued line
            a - b
        )
    backslash_in_the_comment = (  # a comment that ends with a backslash \
        a * b
    )
    return continued, after_a_continuation, backslash_in_the_comment


def patterns(command):
    match command:
        case (  # why
            1 | 2
        ):
            return "or"
        case (  # a value
            3
        ):
            return "value"
        case (  # a singleton
            None
        ):
            return "none"
        case [  # a bracket
            (  # and a parenthesis
                4 | 5
            ),
            _,
        ]:
            return "nested"
        case {"#": (  # a '#' in a key
            6
        )}:
            return "mapping"
        case _:
            return "anything"
