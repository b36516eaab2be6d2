"""What the people who run mcp-actions for others see and decide, below both doors (MCP and BAP).

- ``users``: who a session's user is (an OAuth token's subject), for the audit log, the status
  page and the policy;
- ``metrics``: ``/metrics`` in Prometheus' text format, counted from the audit log's lines and read
  from the running parts at each scrape;
- ``oauth``: the MCP server as an OAuth 2.1 protected resource (``--oauth-issuer``);
- ``live``: the status page's server-sent events.

Nothing here imports ``prometheus_client`` or ``joserfc`` at import time: they load when the option
needing them is used, or at the first scrape (start-up stays as fast as without them).
"""
