"""Card sets: which NFC tag is which card, made by enrollment.

The package, one job a module (none imports one listed after it):

- :mod:`.cardset`: the card-set file format (:class:`CardSet`, its text file,
  the tag codes) and the firmware card map made from it (``cards.bin``: written
  by :meth:`CardSet.export_map`, its header read by :func:`read_map_header`);
- :mod:`.tablelink`: the threaded link client of enroll mode (:class:`EnrollLink`);
- :mod:`.readers`: the readers (:class:`AdafruitUartReader`, a PN532 on a
  USB-UART adapter; :class:`TableTagReader`, a connected table's seat reader);
- :mod:`.procedure`: the enrollment procedure (:class:`Enrollment`, :func:`rebuild`);
- :mod:`.checks`: the checks of a set (:func:`check_static`, :func:`check_scan`).

The file format is described in :mod:`.cardset` and in docs/readers.md.
"""

from __future__ import annotations

from .cardset import (
    FACES,
    HEADER,
    MAP_MAGIC,
    MAX_DECKS,
    UID_LENGTHS,
    CardMapData,
    CardSet,
    CardSetError,
    card_label,
    decode_tag_code,
    labels,
    open_or_create,
    read_map_header,
    set_tag,
)
from .checks import CheckReport, check_scan, check_static
from .procedure import Enrollment, rebuild
from .readers import SEATS, AdafruitUartReader, TableLostError, TableTagReader, TagReader
from .tablelink import APP_ENROLL, APP_REPLY, APP_TAG, EnrollLink

__all__ = [
    "APP_ENROLL",
    "APP_REPLY",
    "APP_TAG",
    "FACES",
    "HEADER",
    "MAP_MAGIC",
    "MAX_DECKS",
    "SEATS",
    "UID_LENGTHS",
    "AdafruitUartReader",
    "CardMapData",
    "CardSet",
    "CardSetError",
    "CheckReport",
    "EnrollLink",
    "Enrollment",
    "TableLostError",
    "TableTagReader",
    "TagReader",
    "card_label",
    "check_scan",
    "check_static",
    "decode_tag_code",
    "labels",
    "open_or_create",
    "read_map_header",
    "rebuild",
    "set_tag",
]
