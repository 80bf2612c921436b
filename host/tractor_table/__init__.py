"""tractor_table: the host tool of the smart Tractor table.

The command line (``tractor-table``), the link to the table, the verifier, the
console, records, enrollment, deployment and the virtual table live here. The
full rules engine is the separate package :mod:`shengji`.
"""

__version__ = "0.1.0"
