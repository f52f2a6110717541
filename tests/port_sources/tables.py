"""Shapes for the differential checks of the `ast` port (tests/port_checks): each is here
because a twin could get it wrong and the fixtures do not hold it."""

import logging

logger = logging.getLogger(__name__)


def unpacked(values):
    first, *rest = values  # a starred name holds an element too
    (head, tail), other = values, 1
    return first, rest, head, tail, other


def logs_through_a_child_logger():
    try:
        return unpacked([1])
    except ValueError:
        logger.child.warning("failed")  # the receiver's first name is the logger
        return None


def a_nested_function_logs():
    try:
        return unpacked([1])
    except ValueError:

        def report():
            logger.warning("failed")  # runs only if called: the clause itself does not log

        return report


class Outer:
    def method(self):
        class Inner:
            def inner_method(self):
                return 1

        return Inner

    lambda_value = lambda self: self  # noqa: E731


if __debug__: ONE_LINE = 1  # noqa: E701  (after the colon: not a name LibCST's reader lists)
if __debug__:
    BLOCK = 2


class OneLine: attribute = 1  # noqa: E701
