"""actions.json manifests: load, validate, compose, and the expression language they use.

A manifest (an ``actions.json`` map) declares the actions a website offers.
This package reads manifests from files, directories and storage roots,
validates them (every problem at once, as data), composes their imports into
one namespaced document, and gives the rest of mcp_actions a typed model of
the result. It imports nothing above itself (the workflow interpreter, the
bridge and the catalogue import it).

Loading:
    ``load_paths(paths)``        every manifest under the paths -> ``LoadResult``
    ``load_document(document)``  one parsed manifest -> ``LoadedManifest`` or ``ManifestReport``
    ``LoadResult``, ``LoadedManifest``, ``ManifestReport``
    ``RemoteFetcher``            fetches https imports; create one and pass it down
    ``bundled_manifests_dir()``  the manifests shipped with the package

Validating:
    ``check_manifest(document)`` -> ``ValidationReport`` (errors and warnings, sorted)
    ``validate(document)``       raises ``ManifestError`` when there are errors
    ``Problem``                  one problem: an ``ErrorCode``, a JSON Pointer, a message
    ``ValidationReport``, ``Limits``, ``DEFAULT_LIMITS``

The model (pydantic, for a manifest that passed validation):
    ``Manifest``, ``Tool``, ``Workflow``, ``ToolOrigin`` (where a composed tool came from)

The shape (``shape.py``: every object's keys and values, where names are
declared and which members reference them) is declared once; the validator,
composition, the workflow compiler and the model's tests all read it.

Expressions (JSONata ``{% … %}`` slots, compiled once and evaluated with bounds):
    ``compile_expression(source)`` -> ``CompiledExpression``
"""

from __future__ import annotations

from .compose import ToolOrigin
from .expressions import CompiledExpression, compile_expression
from .fetch import RemoteFetcher
from .limits import DEFAULT_LIMITS, Limits
from .load import LoadedManifest, LoadResult, ManifestReport, load_document, load_paths
from .model import Manifest, Tool, Workflow
from .paths import bundled_manifests_dir
from .problems import Problem, ValidationReport
from .validate import check_manifest, validate

__all__ = [
    "DEFAULT_LIMITS",
    "CompiledExpression",
    "Limits",
    "LoadResult",
    "LoadedManifest",
    "Manifest",
    "ManifestReport",
    "Problem",
    "RemoteFetcher",
    "Tool",
    "ToolOrigin",
    "ValidationReport",
    "Workflow",
    "bundled_manifests_dir",
    "check_manifest",
    "compile_expression",
    "load_document",
    "load_paths",
    "validate",
]
