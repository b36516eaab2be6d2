"""A map's attachments as runtimes receive them in ``runtime_config``.

An attachment is declared once in a map (schema v1 "attachments") and
installed by every runtime whose page the map covers. What a runtime gets is
the declared object, plus what it cannot work out itself:

- ``namespace``: the map it belongs to (ids are unique per map, not per page);
- ``when_state``: for a ``target`` that names a declared ``state``, that
  state's diagnostics as ``locator.probe`` probes (``{name, probes}``): the
  runtime installs the attachment only while every probe holds, as the server
  would judge the state current (``manifest/state_probes.py``);
- ``affordance.opens.kind``: ``primitive`` when ``opens.tool`` is a primitive
  of the dictionary (the runtime runs it itself, e.g. ``overlay.open``),
  ``tool`` when it names one of the map's tools (the runtime asks the bridge
  with ``attachment_open``, and the bridge runs the tool), ``unavailable``
  with an ``error`` when neither or when its arguments cannot be prepared
  (the runtime reports the attachment ``failed``);
- ``opens.arguments.html`` for an ``html_source`` (the spec's example opens
  ``overlay.open`` with a path to an HTML file) or a ``template`` reference:
  the file is read here, on the server, from the map's own files with
  ``storage.read_file``'s boundaries (``manifest/storage_files.py``), and its
  text travels as ``html`` (a template's ``data`` as ``data_json``); the page
  never fetches anything.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any

from ..errors import ActionError, ErrorCode
from ..manifest.load import LoadedManifest
from ..manifest.state_probes import build_probes
from ..manifest.storage_files import MAX_ASSET_BYTES, SiteFiles
from ..primitive_dictionary import host_primitives

__all__ = ["attachment_configs"]


def _overlay_html(files: SiteFiles, arguments: dict[str, Any]) -> None:
    """Replace an ``html_source`` path or a ``template`` (+ ``data``) reference by ``html`` (+ ``data_json``).

    Read with ``storage.read_file``'s rules: the map's own folder, or its site directory in the
    storage scopes its trust may read. Raises ``ActionError`` (a file that is not there is
    ``asset_not_found``, as the overlay primitives call it).
    """
    if isinstance(arguments.get("html_source"), str):
        path = arguments.pop("html_source")
        try:
            found = files.resolve_path(path)
        except ActionError as exc:
            if exc.code == ErrorCode.STORAGE_FILE_NOT_FOUND:
                raise ActionError(f"html_source {path} does not exist", code=ErrorCode.ASSET_NOT_FOUND, evidence={"path": path}) from exc
            raise
        if found.file.stat().st_size > MAX_ASSET_BYTES:
            raise ActionError(f"html_source {path} is larger than {MAX_ASSET_BYTES} bytes", code=ErrorCode.STORAGE_FILE_TOO_LARGE, evidence={"path": path})
        arguments["html"] = files.read(found, MAX_ASSET_BYTES)["text"]
    elif "template" in arguments:
        resolved = files.resolve_overlay_arguments(arguments)
        arguments.clear()
        arguments.update(resolved)


def _map_trust(manifest: LoadedManifest) -> str:
    """The trust of the map itself (its own tools' origin), ``local`` when it declares no tool."""
    own = [origin.trust for origin in manifest.origins.values() if origin.source == manifest.source]
    return own[0] if own else "local"


def _prepared_opens(opens: Mapping[str, Any], manifest: LoadedManifest) -> dict[str, Any]:
    prepared = copy.deepcopy(dict(opens))
    tool = prepared.get("tool")
    own_tools = {t.name for t in manifest.model.tools}
    if isinstance(tool, str) and tool in own_tools:
        prepared["kind"] = "tool"
    elif isinstance(tool, str) and tool in host_primitives():
        prepared["kind"] = "primitive"
    else:
        prepared["kind"] = "unavailable"
        prepared["error"] = {"code": ErrorCode.UNKNOWN_TOOL.value, "message": f"opens.tool {tool!r} is neither a tool of this map nor a primitive"}
        return prepared
    arguments = prepared.get("arguments")
    if isinstance(arguments, dict) and "html" not in arguments and ("html_source" in arguments or "template" in arguments):
        try:
            _overlay_html(SiteFiles.of_map(manifest.source, _map_trust(manifest)), arguments)
        except ActionError as exc:
            prepared["kind"] = "unavailable"
            prepared["error"] = {"code": exc.code, "message": exc.message}
    return prepared


def _state_probes(manifest: LoadedManifest, name: str) -> dict[str, Any]:
    """``{name, probes}`` for the declared state ``name`` (no probes: a state that cannot be diagnosed, never current)."""
    states = [state for state in manifest.model.states if state.name == name]
    probes, _, _ = build_probes(states)
    return {"name": name, "probes": [probe.request() for probe in probes]}


def attachment_configs(manifest: LoadedManifest) -> list[dict[str, Any]]:
    """Every attachment of ``manifest`` as ``runtime_config`` carries it (see the module docstring)."""
    configs = []
    for attachment in manifest.model.attachments:
        config = attachment.model_dump(mode="json", by_alias=True, exclude_none=True)
        config["namespace"] = manifest.namespace
        target = config.get("target")
        if isinstance(target, dict) and isinstance(target.get("state"), str):
            config["when_state"] = _state_probes(manifest, target["state"])
        affordance = config.get("affordance")
        if isinstance(affordance, dict) and isinstance(affordance.get("opens"), dict):
            affordance["opens"] = _prepared_opens(affordance["opens"], manifest)
        configs.append(config)
    return configs
