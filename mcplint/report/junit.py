"""``--format junit``: JUnit XML, shaped like ruff's, for CI test-report viewers.

One ``testsuite`` per file, one failed ``testcase`` per finding (named
``org.mcplint.<CODE>``); a clean run is one passing testcase, so viewers show
"1 passed" rather than an empty report they may read as "not run".
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from collections.abc import Sequence
from pathlib import PurePath

from mcplint.finding import Finding

_PACKAGE = "org.mcplint"
# XML 1.0 cannot carry these at all, not even as character references
# (control characters, lone surrogates, U+FFFE/U+FFFF); ElementTree would
# write them and produce a file no parser accepts.
_NOT_XML = re.compile("[^\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


def _xml_text(text: str) -> str:
    return _NOT_XML.sub("\ufffd", text)


def _testsuite(parent: ET.Element, name: str, tests: int, failures: int) -> ET.Element:
    return ET.SubElement(
        parent,
        "testsuite",
        name=_xml_text(name),
        tests=str(tests),
        disabled="0",
        errors="0",
        failures=str(failures),
        package=_PACKAGE,
    )


def _classname(path: str) -> str:
    # ruff's classname: the path without its suffix (``pkg/server.py`` -> ``pkg/server``).
    pure = PurePath(path)
    return _xml_text(str(pure.with_suffix("")) if pure.suffix else path)


def render_junit(findings: Sequence[Finding]) -> str:
    suites = ET.Element(
        "testsuites", name="mcplint", tests=str(max(1, len(findings))), failures=str(len(findings)), errors="0"
    )
    if not findings:
        suite = _testsuite(suites, "mcplint", tests=1, failures=0)
        ET.SubElement(suite, "testcase", name="No errors found", classname="mcplint")
    by_path: dict[str, list[Finding]] = {}
    for finding in findings:
        by_path.setdefault(finding.path, []).append(finding)
    for path, group in by_path.items():
        suite = _testsuite(suites, path, tests=len(group), failures=len(group))
        for finding in group:
            case = ET.SubElement(
                suite,
                "testcase",
                name=f"{_PACKAGE}.{finding.code}",
                classname=_classname(path),
                line=str(finding.line),
                column=str(finding.column),
            )
            failure = ET.SubElement(case, "failure", message=_xml_text(finding.message))
            failure.text = _xml_text(f"line {finding.line}, col {finding.column}, {finding.message}")
    ET.indent(suites, space="    ")
    # ElementTree escapes &, <, > and quotes (and newlines in attributes);
    # ``encoding="unicode"`` leaves out the declaration, which is written here.
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(suites, encoding="unicode") + "\n"
