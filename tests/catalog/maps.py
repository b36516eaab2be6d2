"""Small valid maps, loaded the way a file is (validated and composed), for the catalog and resources tests."""

from __future__ import annotations

from typing import Any

from mcp_actions.manifest.load import LoadedManifest, load_document


def handler_tool(name: str, **extra: Any) -> dict[str, Any]:
    """A tool run by a page handler of the same dotted name."""
    return {"name": name, "description": f"The {name} action.", "input_schema": {"type": "object"}, "x_actions": {"handler": name}, **extra}


def workflow_tool(name: str, *steps: dict[str, Any], **extra: Any) -> dict[str, Any]:
    """A tool running ``steps`` as its workflow."""
    workflow = {"version": 1, "expression_language": "jsonata", "steps": list(steps)}
    return {"name": name, "description": f"The {name} action.", "input_schema": {"type": "object"}, "workflow": workflow, **extra}


def step(primitive: str, step_id: str | None = None, **args: Any) -> dict[str, Any]:
    """One workflow step calling ``primitive`` with ``args``."""
    return {"id": step_id or primitive.replace(".", "_"), "primitive": primitive, "args": args}


def manifest(*tools: dict[str, Any], origin: str | None = "https://shop.test", **root: Any) -> dict[str, Any]:
    """A v1 document around ``tools`` (``origin=None``: a map that names no site)."""
    surface = {"origin": origin} if origin else {}
    return {"protocol": "actions.json", "version": 1, "surface": {**surface, **root.pop("surface", {})}, "tools": list(tools), **root}


def loaded(document: dict[str, Any], *, source: str = "test.actions.json", namespace: str | None = None) -> LoadedManifest:
    """``document`` loaded; the test fails here, with the problems, when it is not a valid map."""
    result = load_document(document, source=source, namespace=namespace)
    assert isinstance(result, LoadedManifest), [p.to_dict() for p in result.errors]
    return result
