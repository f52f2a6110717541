"""The project's helper that puts a caught exception's text in a tool's answer."""


def tool_failure(tool: str, error: Exception, action: str) -> list[dict]:
    return [{"type": "text", "text": f"Error {action} in {tool}: {error}"}]
