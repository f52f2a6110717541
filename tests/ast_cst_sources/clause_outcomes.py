"""Except clauses and the values they hand back, for the differential checks of the `ast` port
(tests/port_checks/catching.py, empty_values.py): shapes the fixtures have few of (a
`while True` retry, a `try: yield` on one line, two returns after a `try`, targets shown as
LibCST prints them). Not run: it is only parsed."""

import contextlib
import json
import logging
import typing

logger = logging.getLogger(__name__)


def retry_forever(client):
    rows = []
    while True:
        try:
            rows = client.fetch()
        except ConnectionError:
            logger.warning("retrying")
            continue
        return rows


def retry_counted(client):
    rows = []
    for attempt in range(3):
        try:
            rows = client.fetch(attempt)
            break
        except TimeoutError:
            continue
    return rows


def first_mirror(mirrors):
    for mirror in mirrors:
        try:
            return mirror.fetch()
        except ConnectionError:
            continue
    else:
        logger.info("no mirror")
    return []


def tested(items, other):
    if len(items) == 1:
        return "one"
    if len(items) == 00:
        return "zero, written twice"
    if len(items) == 0 or not len(other) or items is None or items == [] or other == 0.0:
        return None
    return not None


def listed(client, flag):
    rows = []
    try:
        rows = client.rows()
    except Exception:
        logger.exception("failed")
    if flag:
        return {"rows": rows}
    return rows


def carried(client):
    commits = []
    files = []
    entries = []
    try:
        commits = client.commits()
    except Exception:
        logger.exception("failed")
    files.append({"commits": commits})
    entries.append(commits)
    return {"files": files, "entries": entries}


def added(client):
    names = []
    rows = []
    try:
        for item in client.items():
            rows.append(item)
            names.append(item.name)
    except Exception:
        logger.exception("failed")
    return {"names": names, "rows": rows}


def shared_refs(client):
    refs = {"shared": [1]}
    try:
        refs["shared"] = client.refs()
    except Exception:
        refs[ "shared" ] = []
    return {"refs": refs}


def parenthesised(client):
    rows = None
    text = None
    try:
        rows = client.rows()
        text = client.text()
    except Exception:
        (rows) = []
        text = text or ""
    return json.dumps({"rows": rows, "text": text})


def coalesced(client):
    commit = None
    try:
        commit = client.commit()
    except KeyError:
        commit = None
    return {"sha": (commit or {}).get("sha"), "commit": commit}


def branches(compute, x):
    try:
        value = compute(x)
    except ValueError:
        if x:
            return []
        elif x is None:
            return None
        else:
            if x == 0:
                return {}
    except (TypeError, *compute.errors):
        return ()
    else:
        logger.info("computed")
    finally:
        logger.debug("done")
    return value


async def streamed(client):
    found = []
    async with client.session() as (session, _):
        try:
            async for row in session.rows():
                found.append(row)
        except OSError as error:
            del error
            return found, 0
    return found


def matched(command, client):
    match command:
        case "list":
            try:
                return client.list()
            except LookupError:
                pass
        case _:
            return None
    return []


@contextlib.contextmanager
def inline_guard():
    try: yield
    except ValueError as error:
        raise RuntimeError(str(error)) from error


@contextlib.contextmanager
def guard():
    try:
        received = yield
        logger.info(received)
    except ValueError as error:
        raise RuntimeError(str(error)) from error
    except KeyError as error:
        raise error
    except Exception:
        raise


def odd_receivers():
    None.append(1)
    return SearchResults(), Page(items=[], total=0), Page(*[]), len(None), dict(**{})


def never(message) -> typing.NoReturn:
    raise SystemExit(message)


def fails(message):
    if message:
        raise ValueError(message)
    else:
        raise KeyError(message)


def ends_in_exit(client):
    try:
        return client.run()
    except Exception:
        fails("run failed")


class SearchResults:
    pass


class Page:
    pass
