"""The registry checks (REG001...): one table of code, name, summary and documentation.

Codes are stable and never reused. The loader reports the schema checks
(REG001-REG003, REG007 for malformed ranges, REG017), ``validate.py`` the rest; this
module turns both into ``Finding``s positioned on the TOML file.

Each ``doc`` has the sections of a rule docstring (What it does, Why is this
bad?, Example, Use instead); its TOML examples are fragments of a registry
whose ``schema_version`` and ``namespace`` are left out.
"""

from __future__ import annotations

from dataclasses import dataclass

from mcplint.finding import Finding
from mcplint.fingerprint import snippet_digest
from mcplint.registry.codegen import stale_helpers
from mcplint.registry.load import load_registry
from mcplint.registry.model import Problem, Registry
from mcplint.registry.validate import SEMANTIC_CHECKS

CONTEXT = "<registry>"


@dataclass(frozen=True)
class RegistryCheck:
    code: str
    name: str
    summary: str
    doc: str
    # Judges a file beside the registry (the generated module), not the TOML text alone.
    reads_generated_module: bool = False


CHECKS: tuple[RegistryCheck, ...] = (
    RegistryCheck(
        "REG001",
        "unknown-key",
        "a key the registry schema does not define",
        """
## What it does
Finds keys that the registry format does not know, at the top
level, in `[[reserved]]`, in `[domains.<name>]` and in
`[domains.<name>.errors.<SYMBOL>]`, and suggests the closest known key.

## Why is this bad?
An unknown key is almost always a typo, and a misspelt key is silently
ignored: `retryble = true` leaves the error without its retry flag.

## Example
```toml
[domains.upstream]
range = [2000, 2099]
[domains.upstream.errors.UPSTREAM_UNAVAILABLE]
code = 2001
message = "The provider is unavailable."
retryble = true
```

## Use instead
```toml
[domains.upstream]
range = [2000, 2099]
[domains.upstream.errors.UPSTREAM_UNAVAILABLE]
code = 2001
message = "The provider is unavailable."
retryable = true
```
""",
    ),
    RegistryCheck(
        "REG002",
        "missing-key",
        "a required key is absent",
        """
## What it does
Finds a registry without `schema_version` or `namespace`, a domain without
`range`, an error without `code`, `message` or `retryable`, and a
`[[reserved]]` entry with neither `range` nor `symbols`.

## Why is this bad?
A client decides what to do from the code and the retry flag, and generated
helpers need all three to build an error. An error without them is a name,
not a contract.

## Example
```toml
[domains.auth]
range = [1000, 1099]
[domains.auth.errors.AUTH_TOKEN_INVALID]
message = "The access token is not valid."
```

## Use instead
```toml
[domains.auth]
range = [1000, 1099]
[domains.auth.errors.AUTH_TOKEN_INVALID]
code = 1001
message = "The access token is not valid."
retryable = false
```
""",
    ),
    RegistryCheck(
        "REG003",
        "invalid-value",
        "a value of the wrong type or outside its allowed set",
        """
## What it does
Finds values of the wrong type (`code = "1001"`, `code = 1001.0`,
`retryable = "varies"`, `deprecated_since = 1.4`), a `code` outside JSON-RPC's
int32 range (-2147483648 to 2147483647), an empty `message`, a `status` other than
`active`, `deprecated` or `retired`, a `schema_version` other than 1, a
`helper` that is not a Python identifier, a `helpers-module` that is not a
dotted module name, a `recovery` other than `retry-later`, `check-input`,
`try-alternative` or `report-to-user`, `hints` that are not a list of
non-empty strings, a `retry-after-ms` that is not a positive integer, an
empty `user-message`, a `metadata` key named like a keyword of the generated
helper (`details`, `hint`, `retry_after_ms`), and tables written as plain
values.

## Why is this bad?
The value cannot mean what it says: a string is not a retry decision, and a
float version `1.4` loses `1.40`. Error codes travel as JSON-RPC's 32-bit
integers: `2**63` overflows every client that parses them. Generated code
needs identifiers.

## Example
```toml
[domains.backend]
range = [4000, 4999]
[domains.backend.errors.BACKEND_ERROR]
code = 4001
message = "The backend failed."
retryable = "varies"
```

## Use instead
```toml
[domains.backend]
range = [4000, 4999]
[domains.backend.errors.BACKEND_ERROR]
code = 4001
message = "The backend failed."
retryable = false
```
""",
    ),
    RegistryCheck(
        "REG004",
        "invalid-symbol",
        "a symbol that is not UPPER_SNAKE_CASE",
        """
## What it does
Finds error symbols and `[[reserved]]` symbols that do not match
`^[A-Z][A-Z0-9_]*$`.

## Why is this bad?
The symbol is the machine-readable contract (AIP-193's `reason`): clients
match on it and the generated helper module uses it as a Python name. One
spelling convention keeps it greppable and valid everywhere.

## Example
```toml
[domains.files]
range = [2500, 2599]
[domains.files.errors.path-escape]
code = 2500
message = "The path leaves the workspace."
retryable = false
```

## Use instead
```toml
[domains.files]
range = [2500, 2599]
[domains.files.errors.FILES_PATH_ESCAPE]
code = 2500
message = "The path leaves the workspace."
retryable = false
```
""",
    ),
    RegistryCheck(
        "REG005",
        "duplicate-code",
        "two errors share a code (retired ones included)",
        """
## What it does
Finds an error whose `code` another error already has, in any domain and
whatever its status: a retired entry keeps its number. (A number taken by a
`[[reserved]]` range is REG010.)

## Why is this bad?
Clients tell errors apart by code. Two meanings for one number make every
client that switches on it wrong for one of them, and reusing a retired
number breaks clients that still know the old meaning.

## Example
```toml
[domains.auth]
range = [1000, 1099]
[domains.auth.errors.AUTH_TOKEN_INVALID]
code = 1001
message = "The access token is not valid."
retryable = false
[domains.auth.errors.AUTH_TOKEN_EXPIRED]
code = 1001
message = "The access token expired."
retryable = false
```

## Use instead
```toml
[domains.auth]
range = [1000, 1099]
[domains.auth.errors.AUTH_TOKEN_INVALID]
code = 1001
message = "The access token is not valid."
retryable = false
[domains.auth.errors.AUTH_TOKEN_EXPIRED]
code = 1002
message = "The access token expired."
retryable = false
```
""",
    ),
    RegistryCheck(
        "REG006",
        "duplicate-symbol",
        "the same symbol in two domains",
        """
## What it does
Finds a symbol defined in more than one domain. (A symbol named by
`[[reserved]]` is REG010.)

## Why is this bad?
Symbols share one namespace: in `data.symbol` on the wire and in the
generated helper module. One symbol must mean one cause (AIP-193).

## Example
```toml
[domains.orders]
range = [3000, 3099]
[domains.orders.errors.NOT_FOUND]
code = 3001
message = "No such order."
retryable = false
[domains.users]
range = [3100, 3199]
[domains.users.errors.NOT_FOUND]
code = 3101
message = "No such user."
retryable = false
```

## Use instead
```toml
[domains.orders]
range = [3000, 3099]
[domains.orders.errors.ORDER_NOT_FOUND]
code = 3001
message = "No such order."
retryable = false
[domains.users]
range = [3100, 3199]
[domains.users.errors.USER_NOT_FOUND]
code = 3101
message = "No such user."
retryable = false
```
""",
    ),
    RegistryCheck(
        "REG007",
        "invalid-range",
        "a range that is not [lo, hi] int32 integers with lo <= hi",
        """
## What it does
Finds a domain or `[[reserved]]` `range` that is not a list of exactly two
integers (`[1000.0, 1099.0]` is floats), whose bounds leave JSON-RPC's int32
range (-2147483648 to 2147483647), or whose low bound is above its high bound.
Ranges are inclusive, so `[1003, 1003]` is one number.

## Why is this bad?
A reversed range contains nothing, so every code of the domain is "outside"
it and the reservation reserves nothing; a range of the wrong shape cannot
be checked at all, and one beyond int32 admits codes no client can receive.

## Example
```toml
[domains.auth]
range = [1099, 1000]
```

## Use instead
```toml
[domains.auth]
range = [1000, 1099]
```
""",
    ),
    RegistryCheck(
        "REG008",
        "overlapping-ranges",
        "two domain ranges share numbers",
        """
## What it does
Finds a domain whose `range` overlaps the range of a domain defined before
it. (`[[reserved]]` ranges may lie inside a domain: that is how a domain
keeps a number out of use.)

## Why is this bad?
The range is the domain's namespace. Overlapping ranges let two teams
allocate the same number, and a client can no longer tell a code's domain
from its number.

## Example
```toml
[domains.auth]
range = [1000, 1999]
[domains.billing]
range = [1500, 2499]
```

## Use instead
```toml
[domains.auth]
range = [1000, 1499]
[domains.billing]
range = [1500, 2499]
```
""",
    ),
    RegistryCheck(
        "REG009",
        "code-outside-range",
        "an error's code lies outside its domain's range",
        """
## What it does
Finds an error whose `code` is not inside the `range` of the domain it is
declared in.

## Why is this bad?
A code outside its domain's range sits in another domain's (or nobody's)
space: it collides as soon as that range is used, and readers who map codes
to domains by range are misled.

## Example
```toml
[domains.system]
range = [4000, 4999]
[domains.system.errors.RATE_LIMIT_EXCEEDED]
code = 3001
message = "Too many requests."
retryable = true
```

## Use instead
```toml
[domains.system]
range = [4000, 4999]
[domains.system.errors.RATE_LIMIT_EXCEEDED]
code = 4003
message = "Too many requests."
retryable = true
```
""",
    ),
    RegistryCheck(
        "REG010",
        "reserved-used",
        "an active or deprecated error uses a reserved number or symbol",
        """
## What it does
Finds an error that is not retired whose `code` lies in a `[[reserved]]`
range or whose symbol is listed in a `[[reserved]]` entry's `symbols`.

## Why is this bad?
Numbers and names are reserved because they once meant something else, or
are kept for a planned use (protobuf's `reserved`). Reusing one gives old
clients a wrong meaning.

## Example
```toml
[[reserved]]
range = [1003, 1003]
symbols = ["AUTH_SESSION_LOCKED"]
reason = "removed in 2.0"
[domains.auth]
range = [1000, 1099]
[domains.auth.errors.AUTH_MFA_REQUIRED]
code = 1003
message = "A second factor is required."
retryable = false
```

## Use instead
```toml
[[reserved]]
range = [1003, 1003]
symbols = ["AUTH_SESSION_LOCKED"]
reason = "removed in 2.0"
[domains.auth]
range = [1000, 1099]
[domains.auth.errors.AUTH_MFA_REQUIRED]
code = 1004
message = "A second factor is required."
retryable = false
```
""",
    ),
    RegistryCheck(
        "REG011",
        "protocol-reserved-code",
        "a code in JSON-RPC's reserved band -32768..-32000 (bar the spec's own codes), or 0",
        """
## What it does
Finds codes inside JSON-RPC 2.0's reserved band -32768..-32000, except the
five standard codes used with their standard meaning (-32700 parse error,
-32600 invalid request, -32601 method not found, -32602 invalid params, which
MCP also uses for unknown tools, prompts and resources, -32603 internal
error) and the three MCP defines (-32020 header mismatch, -32021 missing
client capability, -32022 unsupported protocol version). It names the worst
cases: -32002 and -32042 are retired MCP spec codes, -32000..-32019 is MCP's
legacy band, -32020..-32099 is reserved for the MCP specification. It also
finds code 0. Retired entries are skipped. MCP003 judges codes in Python by
the same table.

## Why is this bad?
JSON-RPC reserves the whole band for pre-defined errors, and MCP keeps
assigning codes inside it: -32002 meant "resource not found" until SEP-2164,
and -32042 is URL elicitation. An application code there collides with the
protocol's. Code 0 is what the SDKs send for an unmapped exception, so a
client cannot tell a registered error from a crash.

## Example
```toml
[domains.monica]
range = [-32199, -32100]
[domains.monica.errors.MONICA_API_UNREACHABLE]
code = -32111
message = "Failed to connect to the Monica API."
retryable = true
```

## Use instead
```toml
[domains.monica]
range = [1100, 1199]
[domains.monica.errors.MONICA_API_UNREACHABLE]
code = 1111
message = "Failed to connect to the Monica API."
retryable = true
```
""",
    ),
    RegistryCheck(
        "REG012",
        "unknown-category",
        "`category` is not a google.rpc.Code name (or is OK)",
        """
## What it does
Finds a `category` that is not one of the canonical `google.rpc.Code` names
(`INVALID_ARGUMENT`, `NOT_FOUND`, `UNAVAILABLE`, ...), spelling included,
and suggests the closest one. `OK` is not an error category.

## Why is this bad?
AIP-193 asks for the canonical codes so that every client, proxy and
dashboard agrees on what an error class means; the retry check (REG013) and
HTTP mappings only know those names.

## Example
```toml
[domains.upstream]
range = [2000, 2099]
[domains.upstream.errors.UPSTREAM_UNAVAILABLE]
code = 2001
message = "The provider is unavailable."
retryable = true
category = "Unavailable"
```

## Use instead
```toml
[domains.upstream]
range = [2000, 2099]
[domains.upstream.errors.UPSTREAM_UNAVAILABLE]
code = 2001
message = "The provider is unavailable."
retryable = true
category = "UNAVAILABLE"
```
""",
    ),
    RegistryCheck(
        "REG013",
        "retryable-mismatch",
        "`retryable` contradicts the category's retry advice (AIP-194)",
        """
## What it does
Compares `retryable` with AIP-194's advice for the error's `category`:
`retryable = true` is always a finding on CANCELLED, DEADLINE_EXCEEDED,
INVALID_ARGUMENT, DATA_LOSS, NOT_FOUND, ALREADY_EXISTS, PERMISSION_DENIED,
UNAUTHENTICATED, FAILED_PRECONDITION, OUT_OF_RANGE and UNIMPLEMENTED; on
RESOURCE_EXHAUSTED, ABORTED, INTERNAL and UNKNOWN unless `retry_note` says
why; and `retryable = false` on UNAVAILABLE is a finding unless `retry_note`
says why.

## Why is this bad?
Clients and models retry what the flag tells them to. Retrying an invalid
argument repeats the same failure, and not retrying an outage gives up on a
call that would have worked a second later.

## Example
```toml
[domains.input]
range = [2000, 2099]
[domains.input.errors.INPUT_INVALID]
code = 2001
message = "The input is not valid."
retryable = true
category = "INVALID_ARGUMENT"
```

## Use instead
```toml
[domains.input]
range = [2000, 2099]
[domains.input.errors.INPUT_INVALID]
code = 2001
message = "The input is not valid."
retryable = false
category = "INVALID_ARGUMENT"
```
""",
    ),
    RegistryCheck(
        "REG014",
        "undeclared-placeholder",
        "a `{placeholder}` in a message, hint or user message that `metadata` does not list",
        """
## What it does
Finds `{name}` placeholders in an error's `message`, `hints` and
`user-message` (its own or its domain's default) that its `metadata` list
does not name, and texts with an unbalanced brace (`{{` and `}}` are
literal braces).

## Why is this bad?
AIP-193: every dynamic part of a message must also be in the error's
metadata, so that clients read the value from `data` instead of parsing
text. The generated helper takes the metadata keys as its arguments; a
placeholder without one cannot be filled.

## Example
```toml
[domains.upstream]
range = [2000, 2099]
[domains.upstream.errors.UPSTREAM_UNAVAILABLE]
code = 2001
message = "Provider {provider} is unavailable."
retryable = true
```

## Use instead
```toml
[domains.upstream]
range = [2000, 2099]
[domains.upstream.errors.UPSTREAM_UNAVAILABLE]
code = 2001
message = "Provider {provider} is unavailable."
retryable = true
metadata = ["provider"]
```
""",
    ),
    RegistryCheck(
        "REG015",
        "inconsistent-lifecycle",
        "status, deprecated_since, retired_since and replaced_by disagree",
        """
## What it does
Checks an error's lifecycle fields: a deprecated entry has
`deprecated_since`, a retired one `retired_since` and still its `code`;
`deprecated_since` appears only on deprecated or retired entries,
`retired_since` only on retired ones, `replaced_by` only on entries that are
not active; and `replaced_by` names another error of the registry that is
active.

## Why is this bad?
The lifecycle tells clients and docs what to migrate to and since when. A
`replaced_by` that points to nothing, or to another deprecated entry, sends
readers in circles; a retired entry that drops its number lets the number be
reused.

## Example
```toml
[domains.auth]
range = [1000, 1099]
[domains.auth.errors.AUTH_API_KEY_REJECTED]
code = 1005
message = "API keys are no longer accepted."
retryable = false
status = "deprecated"
replaced_by = "AUTH_TOKEN_INVALD"
```

## Use instead
```toml
[domains.auth]
range = [1000, 1099]
[domains.auth.errors.AUTH_TOKEN_INVALID]
code = 1001
message = "The access token is not valid."
retryable = false
[domains.auth.errors.AUTH_API_KEY_REJECTED]
code = 1005
message = "API keys are no longer accepted."
retryable = false
status = "deprecated"
deprecated_since = "1.4"
replaced_by = "AUTH_TOKEN_INVALID"
```
""",
    ),
    RegistryCheck(
        "REG016",
        "stale-helpers",
        "the generated helper module no longer matches the registry",
        """
## What it does
Compares the helper module that `mcplint registry generate` wrote (the file of
`helpers-module`, for the framework named in its header) with what the registry
generates now, and reports the registry's `helpers-module` line when they
differ. A module that was never generated is not reported.

## Why is this bad?
The helpers are what the code calls: a symbol added to the registry but not
generated does not exist for the type checker or at run time, and a changed
message, code or `retryable` flag in the registry does not reach the wire.

## Example
```toml
helpers-module = "notes.errors"   # notes/errors.py was generated before NOTE_LOCKED was added
[domains.notes]
range = [1000, 1099]
[domains.notes.errors.NOTE_LOCKED]
code = 1002
message = "The note is locked."
retryable = false
```

## Use instead
```toml
helpers-module = "notes.errors"   # regenerated: `mcplint registry generate`
[domains.notes]
range = [1000, 1099]
[domains.notes.errors.NOTE_LOCKED]
code = 1002
message = "The note is locked."
retryable = false
```
""",
        reads_generated_module=True,
    ),
    RegistryCheck(
        "REG017",
        "shadowing-helpers-module",
        "a helpers-module named like a standard library module, an MCP SDK or mcplint",
        """
## What it does
Finds a `helpers-module` whose top-level name is a module of the standard
library (`os`, `json`, `logging.errors`, ... as `sys.stdlib_module_names`
lists them), an MCP SDK (`mcp`, `fastmcp`) or `mcplint`. `mcplint registry
generate` and `mcplint migrate` refuse such a registry (exit 2) and the fixes
into registry helpers are not offered until it is renamed.

## Why is this bad?
The generated module is a file of the project: `helpers-module = "json"`
writes `./json.py`, and from then on every `import json` in the server (and
in the helpers themselves) imports the helpers instead. The server fails at
start-up, far from the registry line that caused it.

## Example
```toml
helpers-module = "json"
```

## Use instead
```toml
helpers-module = "notes.errors"
```
""",
    ),
    RegistryCheck(
        "REG018",
        "retry-after-not-retryable",
        "a `retry-after-ms` on an error that is not retryable",
        """
## What it does
Finds an error (not retired) with `retry-after-ms` whose `retryable` is
`false`. A domain's `retry-after-ms` is a default for its retryable errors
only, so it never fires there.

## Why is this bad?
`retry-after-ms` tells the model how long to wait before repeating the same
call; on an error that must not be retried it is a contradiction that the
generated helper would put on the wire (`data.retryAfterMs` and the text's
`Recovery: ... after N ms`).

## Example
```toml
[domains.notes]
range = [1000, 1099]
[domains.notes.errors.NOTE_LOCKED]
code = 1002
message = "The note is pinned."
retryable = false
retry-after-ms = 500
```

## Use instead
```toml
[domains.notes]
range = [1000, 1099]
[domains.notes.errors.NOTE_LOCKED]
code = 1002
message = "The note is pinned."
retryable = false
```
""",
    ),
    RegistryCheck(
        "REG019",
        "retry-later-not-retryable",
        "`recovery = \"retry-later\"` on an error that is not retryable",
        """
## What it does
Finds an error (not retired) whose `recovery`, its own or its domain's
default, is `retry-later` while its `retryable` is `false`. The derived
default never does this: without a `recovery` key a non-retryable error gets
`check-input`, `try-alternative` or `report-to-user` from its category.

## Why is this bad?
`retry-later` tells the model to repeat the same call after a wait, and
`retryable = false` tells every client the opposite. A model that follows
the recovery hint repeats a call that fails the same way.

## Example
```toml
[domains.notes]
range = [1000, 1099]
[domains.notes.errors.NOTE_LOCKED]
code = 1002
message = "The note is pinned."
retryable = false
recovery = "retry-later"
```

## Use instead
```toml
[domains.notes]
range = [1000, 1099]
[domains.notes.errors.NOTE_LOCKED]
code = 1002
message = "The note is pinned."
retryable = false
recovery = "try-alternative"
```
""",
    ),
    RegistryCheck(
        "REG020",
        "prescriptive-hint",
        "a hint that quotes an argument value instead of giving general guidance",
        """
## What it does
Finds an entry in `hints` (of an error or a domain) that quotes a value, in
`"double"`, `'single'`, `` `back` `` or typographic quotes, or assigns one
(`limit=10`).

## Why is this bad?
Hints are general guidance the model reads on every occurrence of the error
("Check that the note id comes from list_notes."). A hint that names the
value to send is right for one call and wrong for the next, and the model
copies it verbatim: a quoted `"draft"` becomes the next call's argument
whatever the user asked for (the multi-edit envelope study: never
prescriptive replacements).

## Example
```toml
[domains.notes]
range = [1000, 1099]
[domains.notes.errors.NOTE_BAD_STATUS]
code = 1003
message = "The status is not valid."
retryable = false
hints = ["Use status=\\"draft\\" instead."]
```

## Use instead
```toml
[domains.notes]
range = [1000, 1099]
[domains.notes.errors.NOTE_BAD_STATUS]
code = 1003
message = "The status is not valid."
retryable = false
hints = ["Use one of the statuses that list_statuses returns."]
```
""",
    ),
)
CHECKS_BY_CODE: dict[str, RegistryCheck] = {check.code: check for check in CHECKS}
CHECKS_BY_NAME: dict[str, RegistryCheck] = {check.name: check for check in CHECKS}


def check_registry(path: str) -> list[Finding]:
    """Every finding on the registry at ``path``, sorted; raises ``RegistryError`` if it cannot be checked."""
    return registry_findings(load_registry(path))


def registry_findings(registry: Registry) -> list[Finding]:
    problems = list(registry.problems)
    for check in SEMANTIC_CHECKS:
        problems.extend(check(registry))
    problems.extend(stale_helpers(registry))
    return sorted(_finding(registry, problem) for problem in problems)


def _finding(registry: Registry, problem: Problem) -> Finding:
    check = CHECKS_BY_NAME[problem.check]
    span = registry.positions.span(problem.path, problem.part)
    return Finding(
        path=registry.path,
        line=span.line,
        column=span.column,
        code=check.code,
        end_line=span.end_line,
        end_column=span.end_column,
        name=check.name,
        message=problem.message,
        handler=None,
        context=CONTEXT,
        snippet_digest=snippet_digest(span.text),
    )
