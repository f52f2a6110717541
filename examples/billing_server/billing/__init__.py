"""A billing MCP server written the way real projects are: its own server class,
handlers behind a package's re-exports, service objects, a registry of export tools."""
