# Firmware identity, sent in the link handshake.
#
# FIRMWARE_VERSION names this build; RULES_ID names the edition of docs/rules.md the
# device rules engine implements. The host refuses to verify a table whose
# RULES_ID differs from its own engine's, because verdicts would not be
# comparable.
FIRMWARE_VERSION = "0.1.0"
RULES_ID = "rules-2026.1"
