"""The version of gamedsl (logs record it; compiled games are cached under it)."""
__version__ = "0.2.0"
