from ..ledger import Ledger

INVOICES = {"INV-1": {"customer": "acme", "lines": [120, 80]}}


def find_invoice(invoice_id: str) -> dict:
    invoice = INVOICES.get(invoice_id)
    if invoice is None:
        raise KeyError(f"no invoice {invoice_id}")
    return invoice


def invoice_total(invoice_id: str) -> dict:
    ledger = Ledger(INVOICES)
    return ledger.total(invoice_id)
