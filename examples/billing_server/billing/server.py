from .exports import exporter_for, register
from .exports.formats import CsvExport
from .handlers import find_invoice, invoice_total
from .servers.base import AppMCP

billing = AppMCP("billing")
register(CsvExport())


@billing.tool()
def get_invoice(invoice_id: str) -> dict:
    return find_invoice(invoice_id)


@billing.tool()
def total(invoice_id: str) -> dict:
    return invoice_total(invoice_id)


@billing.tool()
def export(fmt: str, invoice_id: str) -> str:
    try:
        invoice = find_invoice(invoice_id)
    except KeyError:
        return ""
    return exporter_for(fmt).run([invoice["lines"]])
