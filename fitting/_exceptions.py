"""Errors raised by fitting.

FittingError            base: anything fitting refuses to do
├── DoesNotFit          even the smallest allowed result exceeds the budget
└── InvalidGeometry     the data cannot be fitted as given (names what and where)
"""

from __future__ import annotations


class FittingError(Exception):
    """Base of every error fitting raises on purpose."""


class DoesNotFit(FittingError):
    """The anchors alone (or unalterable data-viz data) exceed the budget."""


class InvalidGeometry(FittingError):
    """Bad coordinates, empty or open lines/rings, or an index out of range."""
