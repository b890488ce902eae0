#!/usr/bin/env python3
"""Every SARIF document kdt writes is valid against the official SARIF 2.1.0
schema (issue 21, item 5): the schema is vendored in tests/schemas/ (from
oasis-tcs/sarif-spec, see tests/schemas/README.md) and checked with the
`jsonschema` package (Debian's python3-jsonschema, installed by
scripts/setup.sh; the test is skipped with SARIF-SKIPPED without it).

Documents checked: every diagnostic test file (tests/diag/*.kd), a clean
sample (no results), and a file whose path has a space and a `#`, whose
URI must be percent-encoded relative to the SRCROOT base.

usage: sarif_schema.py KDT SOURCE_DIR"""
import glob
import json
import os
import shutil
import subprocess
import sys
import tempfile

try:
    import jsonschema
except ImportError:
    print("SARIF-SKIPPED: the jsonschema package is not installed (apt-get install python3-jsonschema)")
    sys.exit(0)

kdt, src = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
schema = json.load(open(os.path.join(src, "tests", "schemas", "sarif-schema-2.1.0.json")))
validator = jsonschema.Draft4Validator(schema)
failures = []


def sarif_of(path, cwd):
    r = subprocess.run([kdt, "--diagnostics-format", "sarif", "--emit=check", path], cwd=cwd, capture_output=True,
                       text=True, timeout=60)
    try:
        return json.loads(r.stderr)
    except json.JSONDecodeError as e:
        failures.append("%s: not JSON (%s): %s" % (path, e, r.stderr[:200]))
        return None


def validate(label, doc):
    errors = sorted(validator.iter_errors(doc), key=lambda e: list(e.path))
    for e in errors[:3]:
        failures.append("%s: %s at %s" % (label, e.message[:300], "/".join(map(str, e.path))))
    return not errors


diag_files = sorted(glob.glob(os.path.join(src, "tests", "diag", "*.kd")))
results = 0
for path in diag_files:
    doc = sarif_of(os.path.relpath(path, src), src)
    if doc is None:
        continue
    validate(os.path.basename(path), doc)
    results += len(doc["runs"][0].get("results", []))
    # Every rule carries the --explain text.
    for rule in doc["runs"][0]["tool"]["driver"].get("rules", []):
        if not rule.get("fullDescription", {}).get("text") or not rule.get("help", {}).get("text"):
            failures.append("%s: rule %s has no fullDescription/help" % (os.path.basename(path), rule.get("id")))

clean = sarif_of("samples/accumulate_blocks.kd", src)
if clean is not None:
    validate("accumulate_blocks.kd", clean)
    if clean["runs"][0]["results"]:
        failures.append("accumulate_blocks.kd: a clean sample has results")
    # The validator itself rejects what the schema forbids (so that this test can fail).
    broken = json.loads(json.dumps(clean))
    broken["runs"][0]["columnKind"] = "bytes"
    if not list(validator.iter_errors(broken)):
        failures.append("the schema validator accepted columnKind 'bytes'")

tmp = tempfile.mkdtemp(prefix="kdt-sarif-")
try:
    odd = os.path.join(tmp, "sp ace", "a#b.kd")
    os.makedirs(os.path.dirname(odd))
    shutil.copy(os.path.join(src, "tests", "diag", "fail_bad_argument.kd"), odd)
    doc = sarif_of(os.path.join("sp ace", "a#b.kd"), tmp)
    if doc is not None and validate("sp ace/a#b.kd", doc):
        loc = doc["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"]
        if loc.get("uri") != "sp%20ace/a%23b.kd" or loc.get("uriBaseId") != "SRCROOT":
            failures.append("sp ace/a#b.kd: artifact location %s, expected sp%%20ace/a%%23b.kd relative to SRCROOT" % loc)
finally:
    shutil.rmtree(tmp)

if len(diag_files) < 100 or results < len(diag_files):
    failures.append("only %d diagnostic files with %d results: the test found too little" % (len(diag_files), results))
for f in failures:
    print("FAIL", f)
print("sarif_schema: %d documents, %d results, %d failures" % (len(diag_files) + 2, results, len(failures)))
sys.exit(1 if failures else 0)
