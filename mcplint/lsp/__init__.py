"""`mcplint server`: the language server (LSP over stdio), built on pygls.

- ``server``: the protocol wiring (documents, debouncing, publishing, requests);
- ``workspace``: the project model of a workspace folder, with the editor's unsaved
  buffers analysed in place of the files on disk;
- ``diagnostics``: findings as LSP diagnostics (positions in the client's encoding);
- ``actions``: code actions (fixes, suppressions, fix-all) and hover.

pygls and lsprotocol are an optional extra (``pip install 'mcplint[lsp]'``): only the
``server`` command imports this package.
"""
