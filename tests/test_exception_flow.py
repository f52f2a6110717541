"""The exception-flow and empty-value analyses behind MCP005 and MCP006, and their options."""

from __future__ import annotations

import textwrap

import libcst as cst
import pytest
from fixture_expectations import expected_findings, fixture_files, silent_cases

from mcplint.analysis.empty_values import clause_returns, is_empty_value, never_returns
from mcplint.analysis.exception_flow import ExceptionFlow, StdioDetector, caught_names, reraises
from mcplint.analysis.imports import ImportTable
from mcplint.analysis.walk import Walker
from mcplint.engine.lint import lint_text
from mcplint.rules import RULES_BY_CODE
from mcplint.settings import FileSettings

MINIMUM_CASES = 20


@pytest.mark.parametrize("code", ["MCP005", "MCP006"])
def test_rule_fixtures_cover_enough_cases(code):
    texts = [path.read_text(encoding="utf-8") for path in fixture_files(code)]
    invalid = sum(len({c for c in expected_findings(text) if c[1] == code}) for text in texts)
    valid = sum(len({c for c in silent_cases(text) if c[1] == code}) for text in texts)
    assert invalid >= MINIMUM_CASES, f"{code}: only {invalid} invalid cases"
    assert valid >= MINIMUM_CASES, f"{code}: only {valid} valid cases"


# -- helpers -----------------------------------------------------------------------------
def _module(source: str) -> tuple[cst.Module, ImportTable]:
    module = cst.parse_module(textwrap.dedent(source))
    imports = ImportTable()
    Walker([imports]).walk(module)
    return module, imports


def _flow(source: str, **options: object) -> tuple[ExceptionFlow, cst.Module]:
    module, imports = _module(source)
    flow = ExceptionFlow(imports, **options)  # type: ignore[arg-type]
    for node in module.body:
        if isinstance(node, cst.FunctionDef):
            flow.add_function(node.name.value, node, None)
    return flow, module


def _code(module: cst.Module, node: cst.CSTNode) -> str:
    return module.code_for_node(node)


def _leaks(source: str, **options: object) -> list[tuple[str, str, str]]:
    flow, module = _flow(source, **options)
    return [(leak.function, _code(module, leak.origin.node), leak.sink.description) for leak in flow.leaks()]


def _findings(source: str, code: str, **rule_options: object) -> list[int]:
    settings = FileSettings(codes=frozenset(RULES_BY_CODE), rule_options={code: rule_options})
    result = lint_text(textwrap.dedent(source), "server.py", settings)
    return [finding.line for finding in result.findings if finding.code == code]


# -- exception flow ----------------------------------------------------------------------
def test_the_origin_is_the_expression_that_makes_the_text():
    leaks = _leaks("""
        def tool(x):
            try:
                return run(x)
            except Exception as e:
                message = "failed: %s" % e
                return {"error": message, "args": e.args, "again": f"{e!r}"}
        """)
    assert sorted(origin for _, origin, _ in leaks) == ['"failed: %s" % e', "e.args", "{e!r}"]
    assert {sink for *_, sink in leaks} == {"the returned value"}


def test_what_one_iteration_taints_reaches_the_next_one_s_uses():
    leaks = _leaks("""
        def tool(items):
            message = "ok"
            for item in items:
                if item is None:
                    return message
                try:
                    run(item)
                except Exception as e:
                    message = str(e)
            while items:
                items = []
            return "done"
        """)
    assert [(origin, sink) for _, origin, sink in leaks] == [("str(e)", "the returned value")]


def test_flow_is_in_statement_order():
    leaks = _leaks("""
        def tool(x):
            message = "ok"
            try:
                run(x)
            except Exception as e:
                message = str(e)
                message = "failed"
            return message
        """)
    assert leaks == []


def test_a_helper_summary_carries_its_parameter_to_the_return_and_to_its_sinks():
    source = """
        from mcp.server.fastmcp.exceptions import ToolError

        def format_error(error):
            return f"Error: {error}"

        def describe(error):
            return type(error).__name__

        def fail(operation, error):
            raise ToolError(f"{operation}: {error}")

        def tool(x):
            try:
                return run(x)
            except ValueError as e:
                return format_error(e)
            except KeyError as e:
                return describe(e)
            except Exception as e:
                fail("run", e)
        """
    flow, _ = _flow(source)
    assert flow.summary("format_error").returned == {"error"}
    assert flow.summary("describe").returned == set()
    assert set(flow.summary("fail").sinks) == {"operation", "error"}
    leaks = _leaks(source)
    assert [(origin, sink) for _, origin, sink in leaks] == [
        ("format_error(e)", "the returned value"),
        ('fail("run", e)', "the message of `raise ToolError(...)` in `fail`"),
    ]


def test_recursive_helpers_terminate():
    leaks = _leaks("""
        def a(error):
            return b(error)

        def b(error):
            return a(error) or str(error)

        def tool(x):
            try:
                return run(x)
            except Exception as e:
                return a(e)
        """)
    assert [origin for _, origin, _ in leaks] == ["a(e)"]


def test_configured_sanitizers_and_registry_helpers_stop_the_flow():
    source = """
        from acme.errors import upstream_error
        from acme.safety import redact

        def tool(x):
            try:
                return run(x)
            except Exception as e:
                if x:
                    return redact(str(e))
                return upstream_error(reason=str(e))
        """
    assert len(_leaks(source)) == 0  # unknown functions are not followed either
    flow, _ = _flow(source, helpers_module="acme.errors", sanitizers=["redact"])
    call = cst.parse_expression("upstream_error(reason=x)")
    assert isinstance(call, cst.Call) and flow.is_sanitiser(call)
    redact = cst.parse_expression("redact(x)")
    assert isinstance(redact, cst.Call) and flow.is_sanitiser(redact)


def test_the_sanitizers_option_silences_a_module_helper():
    source = """
        from mcp.server.fastmcp import FastMCP

        mcp = FastMCP("s")

        def scrub(text):
            return text.replace("/srv", "...")

        @mcp.tool()
        def tool(x: str) -> str:
            try:
                return run(x)
            except Exception as e:
                return scrub(str(e))
        """
    assert _findings(source, "MCP006") == [14]
    assert _findings(source, "MCP006", sanitizers=["scrub"]) == []


def test_print_is_a_sink_only_on_a_stdio_server():
    module, imports = _module("""
        from mcp.server.fastmcp import FastMCP

        mcp = FastMCP("s")
        web = FastMCP("w")
        web.run(transport="streamable-http")
        mcp.run(transport="stdio")
        """)
    detector = StdioDetector(imports)

    class Feed:
        def visit_Assign(self, node: cst.Assign) -> None:
            detector.visit_Assign(node, at_module_level=True)

        def visit_Call(self, node: cst.Call) -> None:
            detector.visit_Call(node)

    Walker([Feed()]).walk(module)
    assert detector.is_stdio()


def test_except_clause_facts():
    module, imports = _module("""
        import json
        try:
            pass
        except (json.JSONDecodeError, KeyError) as e:
            if e:
                raise
        except:
            pass
        """)
    statement = module.body[1]
    assert isinstance(statement, cst.Try)
    first, bare = statement.handlers
    assert caught_names(first, imports) == ("json.JSONDecodeError", "KeyError")
    assert caught_names(bare, imports) == ()
    assert reraises(first) and not reraises(bare)


# -- empty values -----------------------------------------------------------------------
@pytest.mark.parametrize(
    "expression",
    [
        "[]",
        "{}",
        "()",
        "set()",
        "None",
        "False",
        '""',
        "0",
        "0.0",
        '{"items": [], "total": 0}',
        "Page(items=[])",
        "SearchResults()",
        "json.dumps([])",
        '"[]"',
    ],
)
def test_empty_looking_values(expression):
    assert is_empty_value(cst.parse_expression(expression))


@pytest.mark.parametrize(
    "expression",
    [
        "[1]",
        '{"error": "x"}',
        '" "',
        "1",
        "True",
        "boto3.Session()",
        "Page(items=rows)",
        "(None, None)",
        '"No results"',
        "ValueError()",
        "results",
    ],
)
def test_values_that_do_not_look_empty(expression):
    assert not is_empty_value(cst.parse_expression(expression))


def _outcomes(source: str) -> list[tuple[str, bool, bool]]:
    module = cst.parse_module(textwrap.dedent(source))
    functions = [node for node in module.body if isinstance(node, cst.FunctionDef)]
    exits = frozenset(f.name.value for f in functions if never_returns(f))
    return [
        (
            module.code_for_node(outcome.return_node).strip() if outcome.return_node else "<end>",
            outcome.falls_through,
            outcome.empty,
        )
        for outcome in clause_returns(functions[-1], exits)
    ]


def test_a_local_counts_by_its_value_on_the_exception_path():
    assert _outcomes("""
        def f():
            results = []
            try:
                results = fetch()
            except Exception:
                pass
            return results
        """) == [("return results", True, True)]
    assert _outcomes("""
        def f():
            results = []
            try:
                results.extend(fetch())
            except Exception:
                pass
            return results
        """) == [("return results", True, False)]


def test_where_a_clause_falls_through_to():
    assert _outcomes("""
        def f():
            try:
                return fetch()
            except Exception:
                log.warning("failed")
        """) == [("<end>", True, True)]
    # A helper that always raises ends the clause.
    assert _outcomes("""
        def fail():
            raise RuntimeError("x")

        def f():
            try:
                return fetch()
            except Exception:
                fail()
        """) == []
    # Moving on past a candidate that is not there is a search ...
    assert _outcomes("""
        def f(directories):
            for directory in directories:
                try:
                    return open(directory + "/app.toml").read()
                except FileNotFoundError:
                    continue
            return None
        """) == []
    # ... but past the loop of a search that returns its first success, every failure led there.
    assert _outcomes("""
        def f(mirrors):
            for mirror in mirrors:
                try:
                    return fetch(mirror)
                except Exception:
                    continue
            return None
        """) == [("return None", True, True)]


def test_mcp005_options_are_configurable():
    source = """
        import json
        from mcp.server.fastmcp import FastMCP

        mcp = FastMCP("s")

        @mcp.tool()
        def tool(lines: list[str]) -> list:
            for line in lines:
                try:
                    return [json.loads(line)]
                except json.JSONDecodeError:
                    return []
            return lines
        """
    assert _findings(source, "MCP005") == []
    assert _findings(source, "MCP005", **{"loop-exceptions": []}) == [13]
