#!/usr/bin/env python3
"""The Neovim set-up of the README and docs/editors.md, run in a real
Neovim (issue 21, item 3): Debian 12's Neovim 0.7.2, headless, with each
document's first `lua` snippet as init.lua (the `kdt` command replaced by
the binary under test). Opening a .kd file with an undeclared name must
show kdt's diagnostic (code, line, column, message) and a hover on a
parameter must answer with its declaration. Skipped (NVIM-SKIPPED) where
nvim is not installed (scripts/setup.sh installs Debian's neovim).

usage: neovim_lsp.py KDT SOURCE_DIR"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

kdt, src = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
nvim = shutil.which("nvim")
if not nvim:
    print("NVIM-SKIPPED: nvim is not installed (apt-get install neovim)")
    sys.exit(0)
version = subprocess.run([nvim, "--version"], capture_output=True, text=True).stdout.splitlines()[0]

KD = """kernel k(x: in f32[8] @global, y: out f32[8] @global) grid(1) {
    y[...] = x[...] + undefined_thing;
}
"""

# Waits for the diagnostics, asks for a hover on `x` (line 2, column 15), writes both as JSON, quits.
PROBE = r"""
local out = { diagnostics = {}, hover = {} }
out.waited = vim.wait(20000, function() return #vim.diagnostic.get(0) > 0 end, 50)
for _, d in ipairs(vim.diagnostic.get(0)) do
  table.insert(out.diagnostics, { lnum = d.lnum, col = d.col, message = d.message, code = d.code })
end
local params = { textDocument = { uri = vim.uri_from_bufnr(0) }, position = { line = 1, character = 14 } }
for _, r in pairs(vim.lsp.buf_request_sync(0, "textDocument/hover", params, 10000) or {}) do
  table.insert(out.hover, r.result)
end
local f = io.open(vim.env.KDT_PROBE_OUT, "w")
f:write(vim.fn.json_encode(out))
f:close()
vim.cmd("qa!")
"""


def first_lua_block(path, after):
    text = open(path).read()
    text = text[text.index(after):]
    m = re.search(r"```lua\n(.*?)```", text, re.S)
    return m.group(1)


failures = []
for doc, heading in (("README.md", "## Use from your editor"), ("docs/editors.md", "## Neovim")):
    snippet = first_lua_block(os.path.join(src, doc), heading)
    if 'cmd = { "kdt", "lsp" }' not in snippet:
        failures.append("%s: the snippet does not start `kdt lsp`" % doc)
        continue
    tmp = tempfile.mkdtemp(prefix="kdt-nvim-")
    try:
        with open(os.path.join(tmp, "init.lua"), "w") as f:
            f.write(snippet.replace('cmd = { "kdt", "lsp" }', 'cmd = { %s, "lsp" }' % json.dumps(kdt)))
        with open(os.path.join(tmp, "probe.lua"), "w") as f:
            f.write(PROBE)
        with open(os.path.join(tmp, "bad.kd"), "w") as f:
            f.write(KD)
        env = dict(os.environ, KDT_PROBE_OUT=os.path.join(tmp, "out.json"), XDG_STATE_HOME=tmp, XDG_DATA_HOME=tmp,
                   XDG_CONFIG_HOME=tmp, HOME=tmp)
        try:
            r = subprocess.run([nvim, "--headless", "-i", "NONE", "-u", "init.lua", "-c", "luafile probe.lua", "bad.kd"],
                               cwd=tmp, env=env, capture_output=True, text=True, timeout=90)
        except subprocess.TimeoutExpired:
            failures.append("%s: nvim did not finish in 90 s" % doc)
            continue
        if not os.path.exists(os.path.join(tmp, "out.json")):
            failures.append("%s: nvim wrote nothing (status %d): %s" % (doc, r.returncode, (r.stdout + r.stderr)[-500:]))
            continue
        out = json.load(open(os.path.join(tmp, "out.json")))
        want = {"lnum": 1, "col": 22, "code": "undefined-name", "message": "use of undeclared name `undefined_thing`"}
        if out["diagnostics"] != [want]:
            failures.append("%s: diagnostics %s, expected [%s]" % (doc, out["diagnostics"], want))
        hover = " ".join(h["contents"]["value"] for h in out["hover"] if h)
        if "param x: in f32[8] @global" not in hover:
            failures.append("%s: hover on `x` gave %r" % (doc, hover))
    finally:
        shutil.rmtree(tmp)

for f in failures:
    print("FAIL", f)
print("neovim_lsp (%s): %d snippets, %d failures" % (version, 2, len(failures)))
sys.exit(1 if failures else 0)
