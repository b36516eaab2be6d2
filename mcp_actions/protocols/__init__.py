"""Neighbouring protocols (WebMCP, ABP, WAB) as tools of the runtime whose page declares them.

``exposure`` turns a runtime's reported ``page_tools`` into actions.json maps
(one per protocol, through the converters of ``mcp_actions.convert``) that
the catalog exposes as that runtime's tools; ``runner`` runs those tools
through the page engine's protocol primitives; ``naming`` is the one rule
that names tools of every source.
"""
