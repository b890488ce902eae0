"""kdt's exceptions: compile-time (CompileError) and run-time (KernelError)."""
import json


class CompileError(Exception):
    """kdt refused the KD file or could not build it: `.diagnostics` lists
    every diagnostic as kdt's JSON gives it (code, message, locations)."""

    def __init__(self, message, diagnostics=(), status=1):
        super().__init__(message)
        self.diagnostics = list(diagnostics)
        self.status = status

    @classmethod
    def from_kdt(cls, path, status, stderr):
        try:
            diagnostics = json.loads(stderr)
        except ValueError:
            diagnostics = [{"kind": "error", "code": "command-line", "message": stderr.strip(), "locations": []}]
        lines = []
        for d in diagnostics:
            at = (d.get("locations") or [{}])[0].get("caret", {})
            where = "%s:%s:%s: " % (at.get("file"), at.get("line"), at.get("column")) if at else ""
            lines.append("%s%s: %s [%s]" % (where, d.get("kind", "error"), d.get("message", ""), d.get("code", "")))
        return cls("kdt could not build %s:\n%s" % (path, "\n".join(lines)), diagnostics, status)


class KernelError(Exception):
    """A run-time check failed: `.code` (race, out-of-bounds, deadlock, ...),
    `.message`, `.location` (KD file, line, column) and `.diagnostic` (the
    JSON object, with its notes)."""

    def __init__(self, code, message, location, diagnostic=None):
        file, line, column = location
        super().__init__("%s:%d:%d: %s [%s]" % (file, line, column, message, code))
        self.code = code
        self.message = message
        self.location = location
        self.diagnostic = diagnostic or {}
