"""Benchmarks, and the plain-Python Laus used as their baseline and as a test oracle."""
