"""The project's own validation: its messages are written for the client."""

import os


def client_config() -> dict[str, str]:
    interface = os.environ.get("ACME_DB_INTERFACE", "http")
    if interface not in ("http", "https"):
        raise ValueError(f"ACME_DB_INTERFACE must be http or https, not {interface}")
    return {"interface": interface}
