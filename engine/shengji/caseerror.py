"""The error of a conformance case with a missing or malformed field.

One class for both of the full engine's conformance runners
(:mod:`shengji.conformance`, and :mod:`shengji.conformance_hand`, which
``conformance`` loads and so cannot import); its name is in their answers
(``"CaseError: ..."``)."""

from __future__ import annotations

__all__ = ["CaseError"]


class CaseError(ValueError):
    """A case with a missing or malformed field; the message names the field."""
