"""Messages whose values are named like the generated helper's own keywords (`hint`, `details`):
the registry's placeholders must not be (seen on mfa-servicenow-mcp)."""

from mcp.server.fastmcp import FastMCP

mcp = FastMCP("acme-flows")
RECORDS = {"FLOW0001": "a1"}


@mcp.tool()
def find_flow(ref: str, hint: str = "") -> str:
    if ref not in RECORDS:
        raise ValueError(f"No flow record is numbered '{ref}'.{hint} Or pass its sys_id.")
    return RECORDS[ref]


@mcp.tool()
def publish_flow(ref: str, details: str) -> str:
    if not details:
        return f"Error: nothing to publish for {ref}"
    if len(details) > 100:
        return f"Error: the flow notes are too long: {details}"
    return ref
