#!/usr/bin/env python3
"""A deliberately unsafe stdio MCP memory server, the negative control of mcp_peers.py.

It appends a decision the naive way (read the whole file, write it back, no lock, no
rename), so concurrent clients overwrite each other's entries: run against it, the
benchmark's count must come out below what was sent. Not a server to use.

    python3 benches/mcp_peers.py \\
      --server 'racy={python} {cwd}/benches/mcp_racy_server.py {root}' \\
      --read 'racy=read_file:{"path":"demo/memory-bank/activeContext.md"}' \\
      --append 'racy=add_decision:{"title":"Decision {n}"}'
"""

import sys
import time
from pathlib import Path

try:
    from mcp.server.mcpserver import MCPServer as Server
except ImportError:  # the SDK's 1.x name
    from mcp.server.fastmcp import FastMCP as Server

if len(sys.argv) != 2:
    sys.exit("usage: mcp_racy_server.py ROOT")
ROOT = Path(sys.argv[1])
DECISIONS = ROOT / "demo/memory-bank/decisionLog.md"
app = Server("racy-memory")


@app.tool()
def read_file(path: str) -> str:
    """Read a file under the root."""
    return (ROOT / path).read_text(encoding="utf-8")


@app.tool()
def add_decision(title: str) -> str:
    """Append a decision: read, wait a moment (as a slower disk would), write back whole."""
    old = DECISIONS.read_text(encoding="utf-8") if DECISIONS.exists() else "# Decision Log\n"
    time.sleep(0.002)
    DECISIONS.write_text(old + f"\n## {title}\n", encoding="utf-8")
    return "ok"


if __name__ == "__main__":
    app.run()
