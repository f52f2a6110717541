"""Shapes where MCP010's twin reads `ast` differently from LibCST's tree
(tests/port_checks/rules.py): suites after a colon, names that are text in `ast`, arguments
as written, comments in a returned value, `async` loops and definitions."""

import json
import logging
import os

logger = logging.getLogger(__name__)


def load(item):
    return {"id": item}


def fetch_chunk(chunk):
    try:
        return load(chunk)
    except OSError:
        return []


def parse_one(raw):
    try:
        return load(raw)
    except ValueError:
        return None


def error_response(*parts):
    return {"error": parts}


# -- a clause's statements after its colon ------------------------------------------
def suite_clause(ids):
    rows = []
    for item in ids:
        try:
            rows.append(load(item))
        except OSError: continue  # noqa: E701
    return {"rows": rows}


def suite_record(ids):
    rows, errors = [], []
    for item in ids:
        try:
            rows.append(load(item))
        except OSError as exc: errors.append((item, exc))  # noqa: E701
    return {"rows": rows}


def block_record(ids):
    rows, errors = [], []
    for item in ids:
        try:
            rows.append(load(item))
        except OSError as exc:
            errors.append((item, exc))
    return {"rows": rows}


def one_line_failure_test(ids):
    rows, errors = [], []
    for item in ids:
        try:
            rows.append(load(item))
        except OSError as exc:
            errors.append(exc)
    if errors and not rows: return error_response(errors)  # noqa: E701
    return {"rows": rows}


def block_failure_test(ids):
    rows, errors = [], []
    for item in ids:
        try:
            rows.append(load(item))
        except OSError as exc:
            errors.append(exc)
    if errors and not rows:
        return error_response(errors)
    for error in errors: logger.warning("%s", error)  # noqa: E701
    return {"rows": rows}


def logged_loop(ids):
    rows, errors = [], []
    for item in ids:
        try:
            rows.append(load(item))
        except OSError as exc:
            errors.append(exc)
    for error in errors:
        logger.warning("%s", error)
    else:
        print(errors)
    return {"rows": rows}


# -- a recorded local's name used where `ast` has text --------------------------------
def record_as_attribute(ids, report):
    rows, errors = [], []
    for item in ids:
        try:
            rows.append(load(item))
        except OSError as exc:
            errors.append(exc)
    report.errors = 0
    return {"rows": rows}


def record_as_keyword(ids):
    rows, errors = [], []
    for item in ids:
        try:
            rows.append(load(item))
        except OSError as exc:
            errors.append(exc)
    logger.info("done", extra=dict(errors=1))
    return {"rows": rows}


def record_as_clause_name(ids):
    rows, errors = [], []
    for item in ids:
        try:
            rows.append(load(item))
        except OSError as exc:
            errors.append(exc)
        except ValueError as errors:  # noqa: F841
            pass
    return {"rows": rows}


def record_as_import(ids):
    from os import path as errors  # noqa: F401
    rows, errors = [], []  # noqa: F811
    for item in ids:
        try:
            rows.append(load(item))
        except OSError as exc:
            errors.append(exc)
    return {"rows": rows}


def record_in_global(ids):
    global failed_items
    rows, failed_items = [], []
    for item in ids:
        try:
            rows.append(load(item))
        except OSError as exc:
            failed_items.append(exc)
    return {"rows": rows}


def record_in_match(ids, shape):
    rows, errors = [], []
    for item in ids:
        try:
            rows.append(load(item))
        except OSError as exc:
            errors.append(exc)
    match shape:
        case {"kind": "x", **errors}:
            pass
        case [_, *errors]:
            pass
        case dict(errors=1):
            pass
    return {"rows": rows}


def record_in_none(ids):
    rows = []
    for item in ids:
        try:
            rows.append(load(item))
        except OSError as exc:
            None.append(exc)
    return {"rows": rows}


def logged_with_keyword(ids):
    rows, errors = [], []
    for item in ids:
        try:
            rows.append(load(item))
        except OSError as exc:
            errors.append(exc)
    logger.warning("some failed", extra={"errors": errors}, stack_info=errors)
    return {"rows": rows}


# -- arguments as written --------------------------------------------------------------
def filtered_keyword_first(ids):
    parsed = map(parse_one, ids)
    return list(filter(None, parsed))


def filtered_starred(ids):
    return list(filter(*[None], map(parse_one, ids)))


def filtered_through_local(ids):
    parsed = [parse_one(i) for i in ids]
    return [p for p in parsed if p is not None]


def filtered_if_none(ids):
    return [p for p in map(parse_one, ids) if None]


def merged_chunks(chunks):
    rows = []
    for batch in map(fetch_chunk, chunks):
        rows.extend(batch)
    return {"rows": rows}


def merged_keyword(chunks):
    rows = {}
    for chunk in chunks:
        rows.update(values=fetch_chunk(chunk))
    return rows


def fields_of_a_record(edit):
    found = {}
    for key in (*("start", "end"),):
        try:
            found[key] = int(edit.get(key, 1))
        except ValueError:
            continue
    return found


def mapping_fields(records):
    found = []
    for record in records:
        try:
            found.append(record.get(key="doi"))
        except KeyError:
            continue
    return found


def dumped_keyword(ids):
    rows = []
    for item in ids:
        try:
            rows.append(load(item))
        except OSError:
            continue
    if not rows:
        return json.dumps(obj={"error": "nothing loaded"})
    return json.dumps({"rows": rows})


# -- configuration through names `ast` holds as text -------------------------------------
def configured_by_attribute(settings):
    rows = []
    for root in settings.environ:
        try:
            rows.append(load(root))
        except OSError:
            continue
    return rows


def configured_by_keyword(settings):
    rows = []
    for root in dict(environ=settings):
        try:
            rows.append(load(root))
        except OSError:
            continue
    return rows


def configured_through_attribute_local(settings):
    roots = os.getenv("ROOTS", "").split(",")
    rows = []
    for root in settings.roots:
        try:
            rows.append(load(root))
        except OSError:
            continue
    return rows or roots


# -- words in a returned value ------------------------------------------------------------
def commented_answer(ids):
    rows = []
    for item in ids:
        try:
            rows.append(load(item))
        except OSError:
            continue
    return {  # the failed ones are left out
        "rows": rows,
    }


def hashed_answer(ids):
    rows = []
    for item in ids:
        try:
            rows.append(load(item))
        except OSError:
            continue
    return {"tag": "#failed", "rows": rows}


def hashed_and_commented_answer(ids):
    rows = []
    for item in ids:
        try:
            rows.append(load(item))
        except OSError:
            continue
    return {"tag": "#ok",  # skipped
            "rows": rows}


# -- `async` ------------------------------------------------------------------------------
async def async_loop(ids, client):
    rows = []
    async for item in client.stream(ids):
        try:
            rows.append(await client.get(item))
        except OSError:
            continue
    for item in ids:
        try:
            rows.append(await client.get(item))
        except OSError:
            logger.warning("%s", item)
            continue
    return {"rows": rows}


# -- parsing a record at hand ------------------------------------------------------------
def parsed_upstream(records, client):
    rows = []
    for record in client.records():
        try:
            rows.append(None(record))
        except Exception:
            continue
    for record in records:
        try:
            rows.append(b"x".join(record))
        except Exception:
            continue
    for record in client.records():
        try:
            rows.append(None.fetch(record))
        except Exception:
            continue
    for record in client.records():
        try:
            rows.append((1).fetch(record))
        except Exception:
            continue
    return {"rows": rows}


def converted_in_place(info):
    for key, value in info.items():
        try:
            info[key] = int(value)
        except ValueError:
            pass
    return info
