from mcp.server.fastmcp import FastMCP

mcp = FastMCP("docs")
DOCS: dict[str, str] = {}


@mcp.tool()
def fetch(key: str) -> str:
    try:
        if key not in DOCS:
            return "Error: document not found"
        return DOCS[key]
    except Exception:
        return "Error: the document store failed"


@mcp.tool()
def store(key: str, text: str) -> dict:
    if not key:
        return {"error": "A key is required"}
    if len(text) > 10_000:
        raise ValueError(f"Document {key} is longer than 10000 characters")
    DOCS[key] = text
    return {"stored": key}
