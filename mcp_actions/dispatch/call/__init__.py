"""The call path: one call from checked arguments to its answer, through one deadline and one guard chain.

``service.py`` (``ActionService.handle``) makes the call's ``Deadline`` and passes it through the
ordered guards (``guards.py``: visibility, arguments, target, confirmation, then on the runtime
settled for it the policy again, page, capabilities, state, transitions). ``targets.py`` resolves the
runtime and what the call acts on, once; ``tab_turns.py`` gives one acting call per tab at a time;
``execution.py`` runs a map's tool on its runtime; ``after_action.py`` makes sure nothing after the
action turns its outcome into a failure; ``policy.py`` and ``policy_file.py`` are ``--policy``;
``transitions.py`` and ``postconditions.py`` a map's state rules; ``confirm_hint.py``,
``page_guidance.py`` and ``tab_notes.py`` what a refused or moved call tells the model;
``launchers.py`` runs the map tool a page's launcher opens.
"""

__all__: list[str] = []
