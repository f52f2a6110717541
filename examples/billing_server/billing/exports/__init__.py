EXPORTERS: dict = {}


def register(exporter) -> None:
    EXPORTERS[exporter.name] = exporter


def exporter_for(name: str):
    return EXPORTERS[name]
