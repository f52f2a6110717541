"""Shapes whose spans the builder widens (tests/port_checks/spans.py)."""


def commented_clauses(values):
    try:
        return values[0]
    # the clause's own comment, at its indentation: LibCST's clause starts with it
    except IndexError:
        return None
        # a comment at the block's depth after its last statement: the clause's footer
    except KeyError:  # a comment ending the clause's line
        pass
    a = 1; b = 2  # noqa: E702  (each statement holds its ';')
    return (a, (b))
