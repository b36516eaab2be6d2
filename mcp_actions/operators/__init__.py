"""What the people who run mcp-actions for others see and decide, below both doors (MCP and BAP).

- ``users``: who a session's user is (an OAuth token's subject), for the audit log, the status
  page and the policy: ``User``, the ``current_user`` of a call, and the ``user_scope`` it runs in
  (exported here; the other modules are imported by their own names);
- ``metrics``: ``/metrics`` in Prometheus' text format, counted from the audit log's lines and read
  from the running parts at each scrape;
- ``last_check``: the last ``mcp-actions check`` of each map, for the status page;
- ``tokens``: OAuth access tokens checked against the issuer's keys (``--oauth-issuer``); the MCP
  door's adapter to the SDK's authorization is ``server/oauth.py``;
- ``parts``: all of these wired to the app.

The status page's live updates are the bridge's (``bridge/status_live.py``): it serves the page.

Nothing here imports ``prometheus_client`` or ``joserfc`` at import time: they load when the option
needing them is used, or at the first scrape (start-up stays as fast as without them).
"""

from .users import User, current_user, user_scope

__all__ = ["User", "current_user", "user_scope"]
