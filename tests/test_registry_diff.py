"""`mcplint registry diff`: the BRK table, one before/after fixture pair per case, git revisions, exit codes."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from mcplint.registry import RegistryError, load_registry, parse_registry, registry_findings
from mcplint.registry.diff import (
    BREAKING_CHECKS,
    BREAKING_CHECKS_BY_CODE,
    _uncovered,
    diff_registries,
    is_breaking,
    load_revision,
)
from mcplint.registry_diff_command import run_diff

REGISTRIES = Path(__file__).resolve().parent / "fixtures" / "registry"
CASES = REGISTRIES / "diff"
PREAMBLE = 'schema_version = 1\nnamespace = "demo"\n'
SECTIONS = ("What it does", "Why is this bad?", "Example", "Use instead")

# Case directory -> the codes its diff reports (with repeats), sorted.
EXPECTED = {
    "brk001_symbol_removed": ["BRK001"],
    "brk001_retired_deleted": ["BRK001"],
    "brk001_only_number_reserved": ["BRK001"],
    "brk002_code_renumbered": ["BRK002"],
    "brk002_retired_without_code": ["BRK002"],
    "brk003_code_reassigned": ["BRK001", "BRK003"],  # a rename: the old symbol is gone, its code taken
    "brk003_retired_code_reused": ["BRK001", "BRK003"],
    "brk004_reserved_removed": ["BRK004", "BRK004"],  # the range and the symbol
    "brk004_reserved_narrowed": ["BRK004", "BRK004"],
    "brk005_reserved_code_reused": ["BRK004", "BRK004", "BRK005"],
    "brk005_reserved_symbol_reused": ["BRK004", "BRK005"],
    "brk006_retryable_changed": ["BRK006"],
    "brk006_category_changed": ["BRK006"],
    "brk006_metadata_removed": ["BRK006", "BRK100"],
    "brk006_recovery_changed": ["BRK006", "BRK006", "BRK006"],  # own, explicit over derived, domain default
    "brk007_domain_removed": ["BRK007"],
    "brk007_range_shrunk": ["BRK007"],
    "brk100_message_changed": ["BRK100"],
    "ok_retired_properly": [],
    "ok_deleted_and_reserved": [],
    "ok_additions": [],
    "ok_domain_range_shrunk_to_issued": [],
    "ok_reservations_merged": [],
    "ok_envelope_reworded": [],  # hints, user-message, retry-after-ms; a recovery equal to the derived one
}


def _pair(case: str):
    return load_registry(str(CASES / case / "old.toml")), load_registry(str(CASES / case / "new.toml"))


def _diff(case: str):
    return diff_registries(*_pair(case))


def _by_message(findings, fragment):
    [finding] = [finding for finding in findings if fragment in finding.message]
    return finding


# -- the table -------------------------------------------------------------------------
def test_codes_names_and_the_informational_one():
    codes = [check.code for check in BREAKING_CHECKS]
    assert codes == [f"BRK{number:03d}" for number in range(1, 8)] + ["BRK100"]
    assert all(re.fullmatch(r"[a-z]+(-[a-z]+)*", check.name) for check in BREAKING_CHECKS)
    assert len({check.name for check in BREAKING_CHECKS}) == len(BREAKING_CHECKS)
    assert [check.code for check in BREAKING_CHECKS if not check.breaking] == ["BRK100"]


def _examples(doc: str, section: str) -> list[str]:
    body = re.search(rf"^## {re.escape(section)}\n(.*?)(?=^## |\Z)", doc, re.DOTALL | re.MULTILINE)
    assert body, f"no section '{section}'"
    assert re.findall(r"^(Before|After):$", body.group(1), re.MULTILINE) == ["Before", "After"]
    return [PREAMBLE + block for block in re.findall(r"```toml\n(.*?)```", body.group(1), re.DOTALL)]


@pytest.mark.parametrize("check", BREAKING_CHECKS, ids=lambda check: check.code)
def test_each_check_is_documented(check):
    assert re.findall(r"^## (.+)$", check.doc, re.MULTILINE) == list(SECTIONS)


@pytest.mark.parametrize("check", BREAKING_CHECKS, ids=lambda check: check.code)
def test_each_doc_example_fires_and_its_alternative_is_clean(check):
    before, after = (parse_registry(text, "mcp-errors.toml") for text in _examples(check.doc, "Example"))
    assert check.code in {finding.code for finding in diff_registries(before, after)}
    before, after = (parse_registry(text, "mcp-errors.toml") for text in _examples(check.doc, "Use instead"))
    assert diff_registries(before, after) == []
    assert registry_findings(before) == registry_findings(after) == []


def test_every_code_has_a_fixture_pair():
    covered = {code for codes in EXPECTED.values() for code in codes}
    assert covered == set(BREAKING_CHECKS_BY_CODE)
    for check in BREAKING_CHECKS:
        assert any(case.startswith(check.code.lower()) for case in EXPECTED), check.code


# -- the fixture pairs -------------------------------------------------------------------
def test_every_case_directory_is_expected():
    assert sorted(path.name for path in CASES.iterdir() if path.is_dir()) == sorted(EXPECTED)


@pytest.mark.parametrize("case", sorted(EXPECTED))
def test_fixture_pair(case):
    old, new = _pair(case)
    assert registry_findings(old) == []  # every OLD is a valid registry
    assert sorted(finding.code for finding in diff_registries(old, new)) == EXPECTED[case]


@pytest.mark.parametrize("case", sorted(case for case in EXPECTED if case.startswith("ok_")))
def test_allowed_changes_are_valid_registries(case):
    _, new = _pair(case)
    assert registry_findings(new) == []


def test_a_registry_against_itself_has_no_changes():
    registry = load_registry(str(REGISTRIES / "valid.toml"))
    assert diff_registries(registry, registry) == []


# -- positions and messages --------------------------------------------------------------
def test_findings_carry_the_new_file_and_registry_context():
    old, new = _pair("brk002_code_renumbered")
    [finding] = diff_registries(old, new)
    assert finding.path == new.path
    assert finding.context == "<registry>"
    assert finding.name == "code-renumbered"
    assert finding.snippet_digest


def test_a_change_points_at_the_new_value():
    [finding] = _diff("brk002_code_renumbered")
    assert (finding.line, finding.column, finding.end_line, finding.end_column) == (19, 8, 19, 12)
    assert finding.message == (
        "`AUTH_TOKEN_EXPIRED` changed its code from 1002 to 1004; "
        "keep 1002, or deprecate `AUTH_TOKEN_EXPIRED` and add a new symbol"
    )


def test_what_is_gone_is_on_line_1_with_its_old_line():
    [finding] = _diff("brk001_symbol_removed")
    assert (finding.line, finding.column) == (1, 1)
    assert finding.message.startswith("`AUTH_TOKEN_EXPIRED` (code 1002) was removed without being retired or reserved")
    assert finding.message.endswith(f"(was at {CASES / 'brk001_symbol_removed' / 'old.toml'}:18)")
    assert "list its code and symbol in [[reserved]]" in finding.message


def test_a_half_reserved_deletion_says_what_is_missing():
    [finding] = _diff("brk001_only_number_reserved")
    assert "list its symbol in [[reserved]]" in finding.message


def test_a_rename_reports_the_reassigned_code_on_the_new_entry():
    finding = _by_message(_diff("brk003_code_reassigned"), "belonged to")
    assert finding.line == 19
    assert finding.message == (
        "code 1002 belonged to `AUTH_TOKEN_EXPIRED` and now identifies `AUTH_SESSION_EXPIRED`; "
        "give `AUTH_SESSION_EXPIRED` a new code"
    )


def test_a_narrowed_reservation_names_the_released_numbers():
    findings = _diff("brk004_reserved_narrowed")
    narrowed = _by_message(findings, "narrowed")
    assert narrowed.message == (
        "reserved range [1003, 1009] (removed in 2.0) was narrowed: 1006..1009 no longer reserved"
    )
    assert (narrowed.line, narrowed.column) == (5, 9)  # the new `range` value
    symbol = _by_message(findings, "AUTH_SESSION_LOCKED")
    assert (symbol.line, symbol.column) == (6, 11)  # the new `symbols` value


def test_reuse_points_at_the_new_entry():
    finding = _by_message(_diff("brk005_reserved_code_reused"), "uses code")
    assert finding.line == 39
    assert finding.message == "`AUTH_MFA_REQUIRED` uses code 1003, which the old registry reserved (removed in 2.0)"
    finding = _by_message(_diff("brk005_reserved_symbol_reused"), "is a symbol")
    assert finding.line == 42


@pytest.mark.parametrize(
    ("case", "message", "line"),
    [
        ("brk006_retryable_changed", "`UPSTREAM_UNAVAILABLE` changed `retryable` from true to false", 32),
        (
            "brk006_category_changed",
            "`AUTH_TOKEN_INVALID` changed its category from UNAUTHENTICATED to PERMISSION_DENIED",
            15,
        ),
        ("brk006_metadata_removed", "`UPSTREAM_UNAVAILABLE` dropped the metadata key `provider`", 28),
        ("brk006_recovery_changed", "`NOTE_LOCKED` changed `recovery` from check-input to try-alternative", 13),
        ("brk006_recovery_changed", "`NOTE_MISSING` changed `recovery` from check-input to try-alternative", 21),
        ("brk006_recovery_changed", "`SYNC_CONFLICT` changed `recovery` from try-alternative to report-to-user", 25),
        ("brk007_range_shrunk", "domain `auth` now spans [1000, 1001], leaving out codes it issued: 1002", 10),
    ],
)
def test_behavior_and_domain_messages(case, message, line):
    finding = _by_message(_diff(case), message)
    assert finding.line == line


def test_a_removed_domain_is_on_line_1():
    [finding] = _diff("brk007_domain_removed")
    assert finding.line == 1
    assert finding.message.startswith("domain `billing` was removed (was at ")


def test_a_message_change_is_informational():
    [finding] = _diff("brk100_message_changed")
    assert finding.code == "BRK100"
    assert not is_breaking(finding)
    assert finding.line == 14
    assert '"The access token is not valid." to "The access token was rejected."' in finding.message


def test_retired_entries_keep_no_behavior_contract():
    old = parse_registry(
        PREAMBLE + "[domains.a]\nrange = [1, 9]\n[domains.a.errors.A_GONE]\n"
        'code = 1\nmessage = "Gone."\nretryable = true\ncategory = "UNAVAILABLE"\n',
        "old.toml",
    )
    new = parse_registry(
        PREAMBLE + "[domains.a]\nrange = [1, 9]\n[domains.a.errors.A_GONE]\n"
        'code = 1\nmessage = "Gone."\nretryable = false\nstatus = "retired"\nretired_since = "2.0"\n',
        "new.toml",
    )
    assert diff_registries(old, new) == []


@pytest.mark.parametrize(
    ("bounds", "ranges", "gaps"),
    [
        ((1, 9), [], [(1, 9)]),
        ((1, 9), [(1, 9)], []),
        ((1, 9), [(0, 20)], []),
        ((1, 9), [(3, 4), (6, 6)], [(1, 2), (5, 5), (7, 9)]),
        ((1, 9), [(5, 20), (1, 2)], [(3, 4)]),
        ((1, 9), [(20, 30)], [(1, 9)]),
    ],
)
def test_uncovered(bounds, ranges, gaps):
    assert _uncovered(bounds, ranges) == gaps


# -- the command -------------------------------------------------------------------------
def test_run_diff_exits_1_on_breaking_changes(capsys):
    case = CASES / "brk002_code_renumbered"
    assert run_diff(str(case / "old.toml"), str(case / "new.toml"), "json") == 1
    [finding] = json.loads(capsys.readouterr().out)
    assert finding["code"] == "BRK002"
    assert finding["location"] == {"row": 19, "column": 8}


def test_run_diff_exits_0_on_informational_changes_alone(capsys):
    case = CASES / "brk100_message_changed"
    assert run_diff(str(case / "old.toml"), str(case / "new.toml"), "concise") == 0
    assert "BRK100" in capsys.readouterr().out


def test_run_diff_exits_0_without_changes_and_writes_output(tmp_path, capsys):
    case = CASES / "ok_retired_properly"
    report = tmp_path / "report.json"
    assert run_diff(str(case / "old.toml"), str(case / "new.toml"), "json", output=str(report)) == 0
    assert json.loads(report.read_text()) == []
    assert capsys.readouterr().out == ""


def test_run_diff_exits_2_on_an_unreadable_registry(tmp_path, capsys):
    broken = tmp_path / "broken.toml"
    broken.write_text("schema_version = \n")
    assert run_diff(str(broken), str(REGISTRIES / "valid.toml"), "concise") == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.startswith(f"mcplint: error: {broken}:1: invalid TOML")


# -- git revisions -----------------------------------------------------------------------
def _git(cwd: Path, *args: str) -> None:
    subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@example.com", *args],
        cwd=cwd,
        check=True,
        capture_output=True,
    )


@pytest.fixture
def repo(tmp_path, monkeypatch):
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    case = CASES / "brk002_code_renumbered"
    (tmp_path / "config").mkdir()
    shutil.copy(case / "old.toml", tmp_path / "mcp-errors.toml")
    shutil.copy(case / "old.toml", tmp_path / "config" / "errors.toml")
    _git(tmp_path, "init", "-q")
    _git(tmp_path, "add", ".")
    _git(tmp_path, "commit", "-q", "-m", "registry")
    shutil.copy(case / "new.toml", tmp_path / "mcp-errors.toml")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_git_ref_reads_the_committed_default_registry(repo, capsys):
    old = load_revision("git:HEAD", "mcp-errors.toml")
    assert old.path == "git:HEAD:mcp-errors.toml"
    assert [entry.code for entry in old.errors if entry.symbol == "AUTH_TOKEN_EXPIRED"] == [1002]
    assert run_diff("git:HEAD", "mcp-errors.toml", "concise") == 1
    assert "mcp-errors.toml:19:8: BRK002" in capsys.readouterr().out


def test_git_ref_with_a_path_and_an_absolute_default(repo):
    assert load_revision("git:HEAD:config/errors.toml", "mcp-errors.toml").path == "git:HEAD:config/errors.toml"
    registry = load_revision("git:HEAD", str(repo / "config" / "errors.toml"))
    assert diff_registries(registry, load_registry("config/errors.toml")) == []


def test_git_ref_from_a_subdirectory(repo, monkeypatch):
    monkeypatch.chdir(repo / "config")
    assert load_revision("git:HEAD:../mcp-errors.toml", "errors.toml").errors


@pytest.mark.parametrize(
    ("spec", "error"),
    [
        ("git:no-such-ref", "cannot read the registry from git"),
        ("git:HEAD:missing.toml", "cannot read the registry from git"),
        ("git:", "expected git:REF or git:REF:PATH"),
        ("git:--output=x", "expected git:REF or git:REF:PATH"),
    ],
)
def test_git_errors_are_registry_errors(repo, spec, error):
    with pytest.raises(RegistryError, match=re.escape(error)):
        load_revision(spec, "mcp-errors.toml")
    assert not (repo / "x").exists()


def test_git_outside_a_repository_exits_2(tmp_path, monkeypatch, capsys):
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("GIT_CEILING_DIRECTORIES", str(tmp_path.parent))
    shutil.copy(REGISTRIES / "valid.toml", tmp_path / "mcp-errors.toml")
    assert run_diff("git:HEAD", "mcp-errors.toml", "concise") == 2
    assert capsys.readouterr().err.startswith("mcplint: error: git:HEAD:mcp-errors.toml:1: cannot read the registry")
