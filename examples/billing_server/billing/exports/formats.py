import csv
import io


class CsvExport:
    name = "csv"

    def run(self, rows: list) -> str:
        if not rows:
            raise ValueError("nothing to export")
        out = io.StringIO()
        csv.writer(out).writerows(rows)
        return out.getvalue()


class PdfExport:
    """Written, not registered yet: no client reaches it."""

    name = "pdf"

    def run(self, rows: list) -> str:
        raise NotImplementedError("PDF export is not ready")
