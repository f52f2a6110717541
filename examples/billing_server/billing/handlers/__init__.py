from .invoices import find_invoice, invoice_total

__all__ = ["find_invoice", "invoice_total"]
