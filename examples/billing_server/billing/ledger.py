class Ledger:
    def __init__(self, invoices: dict) -> None:
        self.invoices = invoices

    def total(self, invoice_id: str) -> dict:
        if invoice_id not in self.invoices:
            return {"error": f"unknown invoice {invoice_id}"}
        return {"total": sum(self.invoices[invoice_id]["lines"])}

    def close(self, invoice_id: str) -> None:
        if invoice_id not in self.invoices:
            raise ValueError("only known invoices can be closed")
        self.invoices.pop(invoice_id)
