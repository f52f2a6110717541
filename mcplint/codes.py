"""Every code mcplint can report, by family, without importing the rules.

Selection (`--select MCP00`, `ignore = ["REG"]`) runs before anything is linted,
and a warm run never needs the rules themselves; a test keeps this list equal to
the catalogue (`mcplint.catalogue`), which the rule classes and checks define.
"""

ALL_CODES: tuple[str, ...] = (
    "MCP000",
    "MCP001",
    "MCP002",
    "MCP003",
    "MCP004",
    "MCP005",
    "MCP006",
    "MCP007",
    "MCP008",
    "MCP009",
    "REG001",
    "REG002",
    "REG003",
    "REG004",
    "REG005",
    "REG006",
    "REG007",
    "REG008",
    "REG009",
    "REG010",
    "REG011",
    "REG012",
    "REG013",
    "REG014",
    "REG015",
    "REG016",
    "REG017",
    "BRK001",
    "BRK002",
    "BRK003",
    "BRK004",
    "BRK005",
    "BRK006",
    "BRK007",
    "BRK100",
)
