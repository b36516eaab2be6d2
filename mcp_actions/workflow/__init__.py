"""The workflow interpreter: a tool's declared steps run server-side over page primitives.

``CompiledWorkflow.compile`` checks and compiles a manifest workflow once
(JSONata slots compiled, limits applied); ``run_workflow`` walks its steps
(``when``, ``for_each``, ``retry_until`` with ``after_each`` and settling,
``settle_after``, ``on_error``, ``output``) through a ``PrimitiveCaller``,
reports progress, honours the deadline and cancellation, and names the step
and phase of any failure. ``translate_execution`` turns legacy
``x_actions.execution`` steps into a workflow. ``WorkflowLimits`` are the
manifest's limits.
"""

from .compiled import CompiledWorkflow, WorkflowLimits
from .interpreter import PrimitiveCaller, run_workflow
from .legacy import translate_execution

__all__ = ["CompiledWorkflow", "PrimitiveCaller", "WorkflowLimits", "run_workflow", "translate_execution"]
