"""Validates JUnit XML reports against tests/data/junit.xsd (called by tests/exports.rs).

    python3 scripts/validate_junit.py XSD REPORT...

Prints one line per report that does not validate, and exits 1 if any does not.
"""
import sys

import xmlschema

schema = xmlschema.XMLSchema(sys.argv[1])
bad = 0
for report in sys.argv[2:]:
    errors = list(schema.iter_errors(report))
    for error in errors[:3]:
        print(f"{report}: {error.reason} at {error.path}")
    bad += bool(errors)
sys.exit(1 if bad else 0)
