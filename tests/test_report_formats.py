"""The machine-readable and CI formats: sarif, github, junit, and the grouped text layout."""

from __future__ import annotations

import json
import os
import xml.etree.ElementTree as ET
from pathlib import Path
from urllib.parse import unquote, urljoin, urlparse

import jsonschema
import pytest
from click.testing import CliRunner

from mcplint import __version__
from mcplint.catalogue import CodeDoc, catalogue
from mcplint.cli import main
from mcplint.doc_sections import parse_sections
from mcplint.engine.discovery import project_root
from mcplint.finding import Finding
from mcplint.fingerprint import fingerprints
from mcplint.report import FORMATS, render
from mcplint.report.github import escape_data, escape_property, render_github
from mcplint.report.junit import render_junit
from mcplint.report.sarif import region, render_sarif, rule_descriptor
from mcplint.report.text import render_grouped
from mcplint.rules import ALL_RULES
from mcplint.rules.base import Rule

ROOT = Path(__file__).resolve().parent.parent
SCHEMA = json.loads((Path(__file__).parent / "schemas" / "sarif-schema-2.1.0.json").read_text(encoding="utf-8"))
NAMES = {rule.code: rule.name for rule in ALL_RULES}


def make(
    path: str,
    line: int,
    column: int,
    code: str = "MCP001",
    message: str = "Error dict returned as a successful result",
    *,
    end_line: int | None = None,
    end_column: int | None = None,
    context: str = "get_note",
    digest: str = "0123456789abcdef",
) -> Finding:
    return Finding(
        path=path,
        line=line,
        column=column,
        code=code,
        end_line=line if end_line is None else end_line,
        end_column=column + 10 if end_column is None else end_column,
        name=NAMES.get(code, "registry-check"),
        message=message,
        context=context,
        snippet_digest=digest,
    )


def sarif(findings, root: Path) -> dict:
    return json.loads(render_sarif(findings, root=root))


def assert_valid_sarif(log: dict) -> None:
    validator = jsonschema.validators.validator_for(SCHEMA)(SCHEMA)
    errors = sorted(validator.iter_errors(log), key=lambda error: list(error.absolute_path))
    assert not errors, "\n".join(f"{list(error.absolute_path)}: {error.message}" for error in errors)


def only_run(log: dict) -> dict:
    assert len(log["runs"]) == 1
    return log["runs"][0]


def artifact(result: dict) -> dict:
    return result["locations"][0]["physicalLocation"]["artifactLocation"]


def resolved_path(run: dict, result: dict) -> str:
    """Where a consumer finds the file: the URI resolved against its base, decoded."""
    location = artifact(result)
    base = run["originalUriBaseIds"][location["uriBaseId"]]["uri"] if "uriBaseId" in location else ""
    return unquote(urlparse(urljoin(base, location["uri"])).path)


def run_cli(*args: str, cwd: Path):
    previous = os.getcwd()
    os.chdir(cwd)
    try:
        return CliRunner().invoke(main, list(args), catch_exceptions=False)
    finally:
        os.chdir(previous)


# --- the dispatcher ------------------------------------------------------------


def test_formats_in_cli_order():
    assert FORMATS == ("full", "concise", "grouped", "json", "sarif", "github", "junit")


def test_render_dispatches_every_format(tmp_path):
    findings = [make(str(tmp_path / "server.py"), 3, 5)]
    expected = {
        "grouped": render_grouped(findings, color=False),
        "sarif": render_sarif(findings, root=tmp_path),
        "github": render_github(findings, root=tmp_path),
        "junit": render_junit(findings),
    }
    for name in FORMATS:
        output = render(name, findings, color=False, root=tmp_path)
        assert output.endswith("\n")
        if name in expected:
            assert output == expected[name]


def test_render_rejects_an_unknown_format(tmp_path):
    with pytest.raises(ValueError, match="unknown output format 'sarf'"):
        render("sarf", [], color=False, root=tmp_path)


# --- sarif ---------------------------------------------------------------------


def test_sarif_empty_run_is_valid_and_describes_every_rule(tmp_path):
    log = sarif([], tmp_path)
    assert_valid_sarif(log)
    assert log["$schema"] == "https://json.schemastore.org/sarif-2.1.0.json"
    assert log["version"] == "2.1.0"
    run = only_run(log)
    driver = run["tool"]["driver"]
    assert driver["name"] == "mcplint"
    assert driver["version"] == __version__
    assert driver["informationUri"] == "https://github.com/mcplint/mcplint"
    assert [rule["id"] for rule in driver["rules"]] == [document.code for document in catalogue()]
    assert run["results"] == []
    assert run["columnKind"] == "unicodeCodePoints"
    assert run["originalUriBaseIds"] == {"%SRCROOT%": {"uri": tmp_path.as_uri() + "/"}}


def test_sarif_rule_descriptors_carry_the_rule_docs(tmp_path):
    rules = only_run(sarif([], tmp_path))["tool"]["driver"]["rules"]
    assert len(rules) == len(catalogue())
    for document, descriptor in zip(catalogue(), rules, strict=True):
        assert descriptor["name"] == document.name
        assert descriptor["shortDescription"] == {"text": document.summary}
        what = document.sections["What it does"]
        assert descriptor["fullDescription"] == {"text": what}
        assert 0 < len(what) <= 1024
        help_ = descriptor["help"]
        assert help_["text"] == help_["markdown"]
        assert help_["markdown"].startswith(f"# {document.code} {document.name}\n\n## What it does\n")
        assert "<!--" not in help_["markdown"]
        assert descriptor["helpUri"] == f"https://github.com/mcplint/mcplint/blob/main/rules/{document.code}.md"
        assert descriptor["defaultConfiguration"] == {"level": "error"}


class _LongRule(Rule):
    """## What it does
    Reports something at great length.

    {padding}
    """

    code = "MCP998"
    name = "long-rule"


_LongRule.__doc__ = (_LongRule.__doc__ or "").format(padding="word " * 400)


def test_sarif_full_description_is_clipped_to_what_github_accepts():
    document = CodeDoc(
        _LongRule.code,
        _LongRule.name,
        _LongRule.summary(),
        parse_sections(_LongRule.__doc__ or ""),
        "tests/test_report_formats.py",
    )
    descriptor = rule_descriptor(document)
    assert len(descriptor["fullDescription"]["text"]) == 1024
    assert descriptor["fullDescription"]["text"].endswith("…")
    assert descriptor["shortDescription"]["text"] == "Reports something at great length."


def test_sarif_results_are_valid_and_point_at_their_rule(tmp_path):
    findings = [
        make(str(tmp_path / "a.py"), 1, 1, "MCP000", "SyntaxError: invalid syntax"),
        make(str(tmp_path / "a.py"), 4, 9, "MCP002", "Raw `ValueError` raised in handler scope"),
        make(str(tmp_path / "b.py"), 2, 3, "MCP001"),
    ]
    log = sarif(findings, tmp_path)
    assert_valid_sarif(log)
    run = only_run(log)
    rules = run["tool"]["driver"]["rules"]
    assert [result["ruleId"] for result in run["results"]] == ["MCP000", "MCP002", "MCP001"]
    for finding, result in zip(findings, run["results"], strict=True):
        assert rules[result["ruleIndex"]]["id"] == result["ruleId"]
        assert result["level"] == "error"
        assert result["message"] == {"text": finding.message}
        assert "fixes" not in result  # no finding carries a fix yet
        assert list(result["partialFingerprints"]) == ["mcplintFingerprint/v1"]
    region_ = run["results"][1]["locations"][0]["physicalLocation"]["region"]
    assert region_ == {"startLine": 4, "startColumn": 9, "endLine": 4, "endColumn": 19}


def test_sarif_uris_are_relative_to_the_root_and_percent_encoded(tmp_path, monkeypatch):
    root = tmp_path / "project"
    outside = tmp_path / "elsewhere" / "tool.py"
    paths = {
        str(root / "pkg" / "server.py"): "pkg/server.py",
        str(root / "my dir" / "100% #1?.py"): "my%20dir/100%25%20%231%3F.py",
        str(root / "ünï:côdé.py"): "%C3%BCn%C3%AF%3Ac%C3%B4d%C3%A9.py",
        "relative/given.py": "relative/given.py",  # as the CLI shows it: relative to the cwd
        "../project/up/and/back.py": "up/and/back.py",
    }
    root.mkdir()
    monkeypatch.chdir(root)
    findings = sorted(make(path, 1, 1) for path in [*paths, str(outside)])
    log = sarif(findings, root)
    assert_valid_sarif(log)
    run = only_run(log)
    by_path = {finding.path: result for finding, result in zip(findings, run["results"], strict=True)}
    for path, uri in paths.items():
        assert artifact(by_path[path]) == {"uri": uri, "uriBaseId": "%SRCROOT%"}
        assert resolved_path(run, by_path[path]) == os.path.abspath(path)
    # Outside the project there is no base to be relative to.
    assert artifact(by_path[str(outside)]) == {"uri": outside.as_uri()}
    assert resolved_path(run, by_path[str(outside)]) == str(outside)


def test_sarif_regions_are_one_based_and_never_end_before_they_start():
    assert region(3, 5, 3, 9) == {"startLine": 3, "startColumn": 5, "endLine": 3, "endColumn": 9}
    assert region(3, 5, 6, 2) == {"startLine": 3, "startColumn": 5, "endLine": 6, "endColumn": 2}
    assert region(1, 0, 1, 0) == {"startLine": 1, "startColumn": 1, "endLine": 1, "endColumn": 1}
    assert region(0, 0, 0, 0) == {"startLine": 1, "startColumn": 1, "endLine": 1, "endColumn": 1}
    assert region(7, 4, 7, 2) == {"startLine": 7, "startColumn": 4, "endLine": 7, "endColumn": 4}
    assert region(7, 4, 6, 9) == {"startLine": 7, "startColumn": 4, "endLine": 7, "endColumn": 4}


def test_sarif_degenerate_positions_still_validate(tmp_path):
    findings = [make(str(tmp_path / "empty.py"), 1, 0, "MCP000", "SyntaxError", end_line=1, end_column=0)]
    log = sarif(findings, tmp_path)
    assert_valid_sarif(log)
    assert only_run(log)["results"][0]["locations"][0]["physicalLocation"]["region"]["startColumn"] == 1


def test_sarif_fingerprints_are_unique_and_survive_moved_lines(tmp_path):
    path = str(tmp_path / "server.py")
    # Two copies of the same code in the same function, and one elsewhere.
    before = [make(path, 10, 5), make(path, 20, 5), make(path, 30, 5, context="other")]
    after = [make(path, 14, 9), make(path, 25, 9), make(path, 40, 5, context="other")]

    def prints(findings):
        results = only_run(sarif(findings, tmp_path))["results"]
        assert all(list(result["partialFingerprints"]) == ["mcplintFingerprint/v1"] for result in results)
        return [result["partialFingerprints"]["mcplintFingerprint/v1"] for result in results]

    first = prints(before)
    assert len(set(first)) == 3
    assert first == fingerprints(before, tmp_path)
    assert prints(before) == first  # deterministic
    assert prints(after) == first  # lines inserted above, code re-indented
    assert prints(list(reversed(before))) == first  # order of the input does not matter


def test_sarif_fingerprints_depend_on_the_root_relative_path_only(tmp_path):
    one, two = tmp_path / "one", tmp_path / "two"
    first = sarif([make(str(one / "pkg" / "server.py"), 3, 5)], one)
    second = sarif([make(str(two / "pkg" / "server.py"), 8, 1)], two)
    assert only_run(first)["results"][0]["partialFingerprints"] == only_run(second)["results"][0]["partialFingerprints"]


def test_sarif_registry_findings_in_toml_files_get_a_descriptor(tmp_path):
    findings = [
        make(str(tmp_path / "mcplint-errors.toml"), 12, 1, "REG005", "Error code 2001 is defined twice"),
        make(str(tmp_path / "server.py"), 5, 5, "MCP001"),
        make(str(tmp_path / "z.toml"), 1, 1, "ZZZ001", "a code this version does not document"),
    ]
    log = sarif(findings, tmp_path)
    assert_valid_sarif(log)
    run = only_run(log)
    rules = run["tool"]["driver"]["rules"]
    assert [rule["id"] for rule in rules] == [*(document.code for document in catalogue()), "ZZZ001"]
    undocumented = rules[-1]
    assert undocumented["name"] == "registry-check"
    assert undocumented["shortDescription"]["text"] and undocumented["help"]["text"]
    toml_result = next(result for result in run["results"] if result["ruleId"] == "REG005")
    assert rules[toml_result["ruleIndex"]]["id"] == "REG005"
    assert rules[toml_result["ruleIndex"]]["name"] == "duplicate-code"
    assert artifact(toml_result) == {"uri": "mcplint-errors.toml", "uriBaseId": "%SRCROOT%"}
    assert toml_result["locations"][0]["physicalLocation"]["region"]["startLine"] == 12
    for result in run["results"]:
        assert rules[result["ruleIndex"]]["id"] == result["ruleId"]


def test_cli_sarif_on_the_example_server():
    result = run_cli("check", "--format", "sarif", "examples/notes_server", cwd=ROOT)
    assert result.exit_code == 1, result.output
    log = json.loads(result.stdout)
    assert_valid_sarif(log)
    run = only_run(log)
    root = project_root(ROOT)  # the git work tree (this checkout), else the working directory
    assert run["originalUriBaseIds"]["%SRCROOT%"]["uri"] == root.as_uri() + "/"
    assert run["columnKind"] == "unicodeCodePoints"
    rules = run["tool"]["driver"]["rules"]
    assert [rule["id"] for rule in rules] == [document.code for document in catalogue()]
    results = run["results"]
    as_json = json.loads(run_cli("check", "--format", "json", "examples/notes_server", cwd=ROOT).stdout)
    assert len(results) == len(as_json) > 0
    for result, plain in zip(results, as_json, strict=True):
        assert result["ruleId"] == plain["code"]
        assert rules[result["ruleIndex"]]["id"] == result["ruleId"]
        location = artifact(result)
        assert location["uriBaseId"] == "%SRCROOT%"
        assert not location["uri"].startswith(("/", "file:"))
        assert location["uri"].endswith("examples/notes_server/" + Path(plain["filename"]).name)
        assert resolved_path(run, result) == str(ROOT / plain["filename"])
        region_ = result["locations"][0]["physicalLocation"]["region"]
        assert (region_["startLine"], region_["startColumn"]) == (plain["location"]["row"], plain["location"]["column"])
    prints = [result["partialFingerprints"]["mcplintFingerprint/v1"] for result in results]
    assert len(set(prints)) == len(prints)
    # Run from a subdirectory of the same project, the same files get the same URIs and fingerprints.
    if project_root(ROOT / "examples") == root:
        again = run_cli("check", "--format", "sarif", "notes_server", cwd=ROOT / "examples")
        assert json.loads(again.stdout) == log


# --- github --------------------------------------------------------------------


def test_github_line_layout(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    finding = make("pkg/server.py", 12, 15, "MCP002", "Raw `ValueError` raised", end_line=12, end_column=32)
    assert render_github([finding], root=tmp_path) == (
        "::error title=mcplint (MCP002),file=pkg/server.py,line=12,col=15,endLine=12,endColumn=32"
        "::pkg/server.py:12:15: MCP002 Raw `ValueError` raised\n"
    )


def test_github_escapes_data_and_properties(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    message = "100% sure: a, b\nsecond line\r\nthird %0A"
    finding = make("odd,dir/a:b.py", 3, 1, "MCP001", message, end_line=4, end_column=2)
    output = render_github([finding], root=tmp_path)
    assert output == (
        "::error title=mcplint (MCP001),file=odd%2Cdir/a%3Ab.py,line=3,col=1,endLine=4,endColumn=2"
        "::odd,dir/a:b.py:3:1: MCP001 100%25 sure: a, b%0Asecond line%0D%0Athird %250A\n"
    )
    assert output.count("\n") == 1 and "\r" not in output


def test_github_escape_functions():
    assert escape_data("a%b\rc\nd:e,f") == "a%25b%0Dc%0Ad:e,f"
    assert escape_property("a%b\rc\nd:e,f") == "a%25b%0Dc%0Ad%3Ae%2Cf"
    assert escape_data("%0A") == "%250A"  # "%" is escaped first, never twice


def test_github_file_is_relative_to_the_project_root(tmp_path, monkeypatch):
    (tmp_path / "sub").mkdir()
    monkeypatch.chdir(tmp_path / "sub")
    output = render_github([make("server.py", 1, 1)], root=tmp_path)
    assert ",file=sub/server.py," in output
    assert "::server.py:1:1: MCP001 " in output


def test_github_one_line_per_finding_and_nothing_when_clean(tmp_path):
    findings = [make(str(tmp_path / "a.py"), line, 1) for line in (1, 2, 3)]
    assert len(render_github(findings, root=tmp_path).splitlines()) == 3
    assert render_github([], root=tmp_path) == ""


def test_github_positions_never_zero(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    output = render_github([make("a.py", 1, 0, "MCP000", "SyntaxError", end_line=1, end_column=0)], root=tmp_path)
    assert ",line=1,col=1,endLine=1,endColumn=1::" in output


# --- junit ---------------------------------------------------------------------


def test_junit_one_suite_per_file_one_case_per_finding():
    findings = [
        make("pkg/a.py", 1, 8, "MCP001", "first"),
        make("pkg/a.py", 6, 5, "MCP002", "second"),
        make("b.py", 1, 4, "MCP001", "third"),
    ]
    output = render_junit(findings)
    assert output.startswith('<?xml version="1.0" encoding="UTF-8"?>\n<testsuites ')
    suites = ET.fromstring(output)
    assert suites.tag == "testsuites"
    assert suites.attrib == {"name": "mcplint", "tests": "3", "failures": "3", "errors": "0"}
    assert [suite.get("name") for suite in suites] == ["pkg/a.py", "b.py"]
    first = suites[0]
    assert first.attrib == {
        "name": "pkg/a.py",
        "tests": "2",
        "disabled": "0",
        "errors": "0",
        "failures": "2",
        "package": "org.mcplint",
    }
    case = first[1]
    assert case.attrib == {"name": "org.mcplint.MCP002", "classname": "pkg/a", "line": "6", "column": "5"}
    failure = case.find("failure")
    assert failure is not None
    assert failure.get("message") == "second"
    assert failure.text == "line 6, col 5, second"


def test_junit_escapes_what_xml_cannot_hold_raw():
    message = 'returns <dict> & "quotes" \'too\'\nnext line\x1b[0m'
    path = "a&b <c>.py"
    suites = ET.fromstring(render_junit([make(path, 2, 3, "MCP001", message)]))
    suite = suites[0]
    assert suite.get("name") == path
    failure = suite[0].find("failure")
    assert failure is not None
    expected = message.replace("\x1b", "\ufffd")  # not representable in XML 1.0 at all
    assert failure.get("message") == expected
    assert failure.text == f"line 2, col 3, {expected}"


def test_junit_clean_run_is_one_passing_case():
    suites = ET.fromstring(render_junit([]))
    assert suites.attrib == {"name": "mcplint", "tests": "1", "failures": "0", "errors": "0"}
    (suite,) = suites
    assert suite.get("failures") == "0" and suite.get("package") == "org.mcplint"
    (case,) = suite
    assert case.attrib == {"name": "No errors found", "classname": "mcplint"}
    assert len(case) == 0


# --- grouped -------------------------------------------------------------------


def test_grouped_layout():
    findings = [
        make("pkg/a.py", 9, 5, "MCP001", "first"),
        make("pkg/a.py", 103, 17, "MCP002", "second"),
        make("b.py", 1, 4, "MCP001", "third"),
    ]
    assert render_grouped(findings, color=False) == (
        "pkg/a.py:\n"
        "    9:5  MCP001 first\n"
        "  103:17 MCP002 second\n"
        "\n"
        "b.py:\n"
        "  1:4 MCP001 third\n"
        "\n"
        "Found 3 errors.\n"
    )


def test_grouped_colour_only_when_asked():
    findings = [make("a.py", 1, 4, "MCP001", "third")]
    plain = render_grouped(findings, color=False)
    assert "\x1b" not in plain
    coloured = render_grouped(findings, color=True)
    assert coloured.startswith("\x1b[1ma.py:\x1b[0m\n")
    assert "\x1b[1;31mMCP001\x1b[0m third" in coloured
    assert coloured.endswith("\x1b[1mFound 1 error.\x1b[0m\n")


def test_grouped_clean_run():
    assert render_grouped([], color=False) == "All checks passed!\n"


@pytest.mark.parametrize("format_name", FORMATS)
def test_cli_accepts_every_format(format_name):
    result = run_cli("check", "--format", format_name, "examples/notes_server", cwd=ROOT)
    assert result.exit_code == 1, result.output
    assert result.stdout
