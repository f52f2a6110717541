"""The five seed taxonomies (shared/seeds), translated faithfully into registries, mistakes included.

Each test pins the exact (line, code) findings of one translation, then
checks that the lines are the ones the finding is about.
"""

from __future__ import annotations

from pathlib import Path

from mcplint.registry import check_registry

SEEDS = Path(__file__).parent / "fixtures" / "registry"


def findings(number: int) -> tuple[set[tuple[int, str]], list[str]]:
    path = SEEDS / f"seed_{number:03d}.toml"
    lines = path.read_text(encoding="utf-8").splitlines()
    return {(finding.line, finding.code) for finding in check_registry(str(path))}, lines


def lines_of(found: set[tuple[int, str]], code: str) -> list[int]:
    return sorted(line for line, found_code in found if found_code == code)


def test_seed_000_harness_taxonomy():
    # Messages but no retry decisions; domain examples are bare codes; -32000 is the fallback.
    found, lines = findings(0)
    missing_retryable = [22, 26, 30, 39, 43, 47, 51, 55, 59, 63]
    missing_message_and_retryable = [72, 75, 88, 95, 98, 106, 109, 117, 120, 128, 131, 138, 141, 148, 151, 158, 161]
    assert found == {
        *((line, "REG002") for line in missing_retryable + missing_message_and_retryable),
        (31, "REG011"),
    }
    assert lines[30] == "code = -32000"
    assert all(lines[line - 1].startswith("[domains.") for line in lines_of(found, "REG002"))


def test_seed_001_codes_outside_their_category_range():
    found, lines = findings(1)
    assert found == {
        # The JSON-RPC layer gives no retry guidance.
        (14, "REG002"),
        (18, "REG002"),
        (22, "REG002"),
        (26, "REG002"),
        (30, "REG002"),
        # RATE_LIMIT_EXCEEDED and TIMEOUT (System, 4000-4999) and ADAPTER_ERROR (Adapter, 5000-5999).
        (66, "REG009"),
        (71, "REG009"),
        (85, "REG009"),
        # Retryable: "Varies".
        (87, "REG003"),
    }
    assert [lines[line - 1] for line in lines_of(found, "REG009")] == ["code = 3001", "code = 3002", "code = 4001"]
    assert lines[86] == 'retryable = "varies"'


def test_seed_002_string_enum_without_numbers():
    # Three groups without ranges, fifteen symbols without codes; three messages from the usage example.
    found, _ = findings(2)
    domains = [9, 32, 52]
    errors = [12, 15, 18, 21, 26, 29, 35, 39, 42, 45, 48, 55, 58, 61, 64]
    assert found == {(line, "REG002") for line in domains + errors}
    assert len(errors) == 15


def test_seed_003_flat_string_taxonomy_without_numbers():
    found, _ = findings(3)
    domains = [10, 37, 48, 83]
    errors = [13, 17, 21, 25, 29, 33, 40, 44, 51, 55, 59, 63, 67, 71, 75, 79, 86, 90, 94]
    assert found == {(line, "REG002") for line in domains + errors}
    assert len(errors) == 19  # "~18 codes"


def test_seed_004_application_codes_inside_the_jsonrpc_band():
    found, lines = findings(4)
    in_band = [47, 52, 57, 66, 71, 76, 81, 86, 95, 100, 105, 110, 115, 124, 129, 134, 143, 148, 153, 162, 167, 172, 177]
    legacy = [188, 195]
    overlapping_the_jsonrpc_domain = [44, 63, 92, 121, 140, 159, 185]
    assert found == {
        *((line, "REG011") for line in in_band + legacy),
        *((line, "REG008") for line in overlapping_the_jsonrpc_domain),
        # The deprecated legacy codes have no retry decision.
        (187, "REG002"),
        (194, "REG002"),
    }
    assert len(in_band) == 23  # every Tier 2 code, -32101..-32194
    assert all(lines[line - 1].startswith("code = -321") for line in in_band)
    assert [lines[line - 1] for line in legacy] == ["code = -32000", "code = -32001"]
    # The five standard codes are used with their standard meaning: no finding.
    assert not any(found_line < 40 for found_line, _ in found)
