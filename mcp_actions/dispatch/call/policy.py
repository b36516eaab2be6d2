"""The call policy: rules that allow, deny or ask before a call reaches a page (``serve --policy FILE``).

A policy file is JSON::

    {"rules": [{"tools": "board.*", "origins": "https://*.example.com", "decision": "confirm"},
               {"tools": "*.archive_*", "decision": "deny"}]}

``tools`` is a glob (``fnmatch``, case-sensitive) over the dotted tool name,
``origins`` an optional glob over the origin of the page the call runs on
(``scheme://host[:port]``; for a local file, which has none, its URL ``file:///path``:
``bridge/routing.py`` ``page_origin``), ``decision`` one of ``allow``, ``deny``,
``confirm``. ``users`` and ``scopes`` (optional, each a list of globs) narrow a rule to the
calls of some users: the subject of the session's OAuth token (``--oauth-issuer``,
``operators/users.py``) matches one of ``users``, one of its scopes one of ``scopes``; a call
without a user (stdio, no authorization) matches no rule that names users or scopes. The
first rule that matches decides; no match allows. It
applies to every kind of tool: a map's, a page's own (WebMCP, ABP, WAB) and
the built-ins.

Two guards of ``guards.py`` carry it, both after the ``target`` guard, which
resolved the call's target once, opening nothing (``targets.py``):

- ``PolicyGuard`` (stage ``call``, before ``confirmation``) decides every
  call before anything is opened or reaches a page. ``origins`` globs are
  judged by the target's page (``CallTarget.page``): a navigation's destination,
  the tab a ``tab_id`` names, the page the call acts on, else the page the
  call would open (a map's ``surface.origin``);
- ``PolicyOriginGuard`` (stage ``runtime``, first) decides again, for a call
  whose first rule naming it has ``origins``, when the page the call now acts
  on shows another origin than the one judged (a tab that moved meanwhile,
  the page opened for the call after a redirect).

The decision holds through the whole call (``rejudge``): a workflow step that
finds its tab on another origin than the one judged is judged again before it
acts (``ToolRun``: the step carries the judged origin to the runtime, which
refuses to act on another), and a navigation, judged by its destination, is
judged again by where it landed (``ActionService.judge_landing``).

``deny`` is ``permission_denied`` with ``evidence.reason: "policy"`` and the
rule (``rule``: its index, ``tools``, ``origins``); ``confirm`` asks the user
through the call's ``Confirmer`` with the tool, its page and its arguments
shown. A file that cannot be read or breaks the format raises
``PolicyError``, whose message names the file, the rule's index and what is
wrong. ``PolicyHolder`` keeps the policy in force, so a reload can replace
it while calls run.
"""

from __future__ import annotations

import asyncio
import fnmatch
import json
import logging
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from ...bridge.routing import page_origin
from ...errors import ActionError, ErrorCode
from ...jsonutil import StrictJsonError, strict_loads
from ...operators.users import User, current_user
from .guards import PendingCall, Stage

__all__ = ["OriginHold", "Policy", "PolicyError", "PolicyGuard", "PolicyHolder", "PolicyOriginGuard", "PolicyRule", "judged_origin", "page_origin", "rejudge"]

log = logging.getLogger(__name__)

PolicyDecision = Literal["allow", "deny", "confirm"]
_DECISIONS = ("allow", "deny", "confirm")
_RULE_KEYS = {"tools", "origins", "decision", "users", "scopes"}


class PolicyError(ValueError):
    """A policy file that cannot be used: the message names the file, the rule's index and what is wrong."""


@dataclass(frozen=True)
class PolicyRule:
    """One rule: which tools (and pages) it names, and what it decides."""

    index: int
    tools: str
    decision: PolicyDecision
    origins: str | None = None
    #: Globs over the calling user (an OAuth token's subject); None: any caller, with a user or without.
    users: tuple[str, ...] | None = None
    #: Globs over the calling user's scopes: one of them must match one; None: any.
    scopes: tuple[str, ...] | None = None

    def names(self, tool: str) -> bool:
        """Whether the rule's ``tools`` glob matches the dotted tool name, for the user calling now."""
        return fnmatch.fnmatchcase(tool, self.tools) and self.names_caller(current_user())

    def names_caller(self, user: User | None) -> bool:
        """Whether the rule's ``users`` and ``scopes`` (when it has them) name ``user``."""
        if self.users is None and self.scopes is None:
            return True
        if user is None:
            return False
        if self.users is not None and not any(fnmatch.fnmatchcase(user.subject, pattern) for pattern in self.users):
            return False
        return self.scopes is None or any(fnmatch.fnmatchcase(scope, pattern) for scope in user.scopes for pattern in self.scopes)

    @property
    def names_one_tool(self) -> bool:
        """Whether ``tools`` is one exact dotted name (no glob character): a rule written for that tool alone."""
        return not any(ch in self.tools for ch in "*?[")

    def matches(self, tool: str, origin: str | None) -> bool:
        """Whether the rule applies to ``tool`` on a page of ``origin`` (an ``origins`` rule never matches no page)."""
        if not self.names(tool):
            return False
        return self.origins is None or (origin is not None and fnmatch.fnmatchcase(origin, self.origins))

    def describe(self) -> dict[str, Any]:
        """The rule as evidence: its index and globs."""
        described: dict[str, Any] = {"index": self.index, "tools": self.tools, "decision": self.decision}
        if self.origins is not None:
            described["origins"] = self.origins
        for name in ("users", "scopes"):
            if getattr(self, name) is not None:
                described[name] = list(getattr(self, name))
        return described


def _globs(raw: dict[str, Any], name: str, where: str) -> tuple[str, ...] | None:
    """A rule's ``users`` or ``scopes``: a non-empty list of non-empty globs, or absent."""
    value = raw.get(name)
    if value is None:
        return None
    if not isinstance(value, list) or not value or not all(isinstance(v, str) and v for v in value):
        raise PolicyError(f"{where}: '{name}' must be a non-empty array of globs")
    return tuple(value)


@dataclass(frozen=True)
class Policy:
    """The rules in file order; ``source`` is the file they came from."""

    rules: tuple[PolicyRule, ...] = ()
    source: str | None = None

    @classmethod
    def parse(cls, document: Any, *, source: str = "<policy>") -> Policy:
        """The policy of a parsed JSON document; ``PolicyError`` naming the rule and the problem."""
        if not isinstance(document, dict):
            raise PolicyError(f"{source}: the policy must be a JSON object with a 'rules' array")
        unknown = sorted(set(document) - {"rules", "$schema", "description"})
        if unknown:
            raise PolicyError(f"{source}: unknown member {unknown[0]!r} (a policy has 'rules')")
        raw_rules = document.get("rules")
        if not isinstance(raw_rules, list):
            raise PolicyError(f"{source}: 'rules' must be an array of rules")
        rules = []
        for index, raw in enumerate(raw_rules):
            where = f"{source}: rule {index}"
            if not isinstance(raw, dict):
                raise PolicyError(f"{where}: a rule must be an object with 'tools' and 'decision'")
            extra = sorted(set(raw) - _RULE_KEYS)
            if extra:
                raise PolicyError(f"{where}: unknown member {extra[0]!r} (a rule has tools, origins, users, scopes, decision)")
            tools, origins, decision = raw.get("tools"), raw.get("origins"), raw.get("decision")
            if not isinstance(tools, str) or not tools:
                raise PolicyError(f"{where}: 'tools' must be a non-empty glob over dotted tool names")
            if origins is not None and (not isinstance(origins, str) or not origins):
                raise PolicyError(f"{where}: 'origins' must be a non-empty glob over page origins")
            if decision not in _DECISIONS:
                raise PolicyError(f"{where}: 'decision' must be one of allow, deny, confirm, not {json.dumps(decision)}")
            callers = [_globs(raw, name, where) for name in ("users", "scopes")]
            rules.append(PolicyRule(index, tools, decision, origins, *callers))
        return cls(tuple(rules), source)

    @classmethod
    def load(cls, path: str | Path) -> Policy:
        """The policy in the file at ``path``; ``PolicyError`` when it cannot be read or used."""
        source = str(path)
        try:
            text = Path(path).expanduser().read_text(encoding="utf-8")
        except OSError as exc:
            raise PolicyError(f"{source}: cannot read the policy: {exc.strerror or exc}") from exc
        try:
            document = strict_loads(text)
        except json.JSONDecodeError as exc:
            raise PolicyError(f"{source}: not JSON (line {exc.lineno}, column {exc.colno}: {exc.msg})") from exc
        except StrictJsonError as exc:
            # A repeated key: a reader of the file could see the other rule than the one in force.
            raise PolicyError(f"{source}: not strict JSON: {exc}") from exc
        except (ValueError, RecursionError) as exc:
            raise PolicyError(f"{source}: not JSON: {exc}") from exc
        return cls.parse(document, source=source)

    def first_naming(self, tool: str) -> PolicyRule | None:
        """The first rule whose ``tools`` glob names ``tool``, whatever its ``origins``."""
        return next((rule for rule in self.rules if rule.names(tool)), None)

    def decide(self, tool: str, origin: str | None) -> PolicyRule | None:
        """The first rule matching ``tool`` on ``origin``; None: no rule, the call is allowed."""
        return next((rule for rule in self.rules if rule.matches(tool, origin)), None)

    def describe(self) -> dict[str, Any]:
        """The policy in force, for the launch report and the status page."""
        return {"file": self.source, "rules": [rule.describe() for rule in self.rules]}


class PolicyHolder:
    """The policy in force, replaced as a whole when its file is reloaded; ``error``: why the last reload was refused."""

    def __init__(self, policy: Policy | None = None) -> None:
        self.policy = policy or Policy()
        self.error: str | None = None

    def describe(self) -> dict[str, Any]:
        """The policy and the last reload's refusal, if any."""
        return {**self.policy.describe(), "reload_error": self.error}

    async def reload(self, path: str | Path) -> bool:
        """Read the policy file again (in a worker thread); True when it replaced the policy in force.

        A bad edit keeps the policy in force: ``error`` says why, and the user is told on
        stderr (the ``mcp_actions.user`` logger) as well as in the log.
        """
        try:
            policy = await asyncio.to_thread(Policy.load, path)
        except PolicyError as exc:
            self.error = str(exc)
            log.error("the policy was not reloaded, the previous one stays in force: %s", exc)
            logging.getLogger("mcp_actions.user").error("policy not reloaded (the previous one stays in force): %s", exc)
            return False
        self.policy, self.error = policy, None
        log.info("policy reloaded from %s: %d rules", path, len(policy.rules))
        return True


def _page_shown(call: PendingCall, origin: str | None, page: str | None) -> str:
    """The page the user is asked about: the one judged (a navigation's destination), else the tab's."""
    if page:
        return page
    runtime = call.runtime
    if runtime is not None and runtime.url and page_origin(runtime.url) == origin:
        return runtime.url
    return origin or call.tool.surface_origin or "no page"


def _question(call: PendingCall, rule: PolicyRule, origin: str | None, page: str | None) -> str:
    """What the user is asked: the tool, its page and its arguments (shown to them, never logged)."""
    arguments = json.dumps(dict(call.own or call.arguments), ensure_ascii=False, sort_keys=True, default=str)
    if len(arguments) > 2000:
        arguments = arguments[:2000] + "…"
    return f"Allow {call.tool.name} on {_page_shown(call, origin, page)}? Arguments: {arguments} (policy rule {rule.index}: {rule.tools})"


async def _apply(call: PendingCall, rule: PolicyRule | None, origin: str | None, page: str | None = None) -> None:
    call.policy_pending = False
    if rule is None or rule.decision == "allow":
        # A rule that names the tool (exactly, no glob) and allows it is the user's yes given ahead:
        # the map's own question (x_actions.confirm) is not asked then (the confirmation guard reads
        # this). A glob such as "*" allows broadly but never answers a question the map asks.
        call.policy_allowed = rule is not None and rule.names_one_tool
        return
    binding = call.tool
    if rule.decision == "deny":
        call.decision = "denied"
        raise ActionError(
            f"{binding.name} is denied by the policy (rule {rule.index}: tools {rule.tools!r}"
            + (f", origins {rule.origins!r}" if rule.origins else "")
            + ")",
            code=ErrorCode.PERMISSION_DENIED,
            recoverable=False,
            evidence={"tool": binding.name, "reason": "policy", "rule": rule.describe(), **({"origin": origin} if origin else {})},
        )
    confirm = call.context.confirm
    if confirm is None:
        call.decision = "denied"
        raise ActionError(
            f"the policy asks the user before {binding.name} (rule {rule.index}), and nobody can be asked on this way in; "
            f"to run it without asking, give it a policy rule with \"decision\": \"allow\"",
            code=ErrorCode.PERMISSION_DENIED,
            recoverable=False,
            evidence={"tool": binding.name, "reason": "no_elicitation", "rule": rule.describe()},
        )
    await call.confirm_with_user(_question(call, rule, origin, page))


def _target_page(call: PendingCall) -> str | None:
    """The URL the call is judged by: its target's page (``CallTarget.page``), None when it touches no page."""
    return call.target.page if call.target is not None else None


class PolicyGuard:
    """Stage ``call``: the policy's decision, judged by the call's target (see the module)."""

    name = "policy"
    stage = Stage.CALL

    def __init__(self, holder: PolicyHolder) -> None:
        self.holder = holder

    def applies(self, call: PendingCall) -> bool:
        return bool(self.holder.policy.rules)

    async def admit(self, call: PendingCall) -> None:
        policy = self.holder.policy
        tool = call.tool.name
        first = policy.first_naming(tool)
        if first is None:
            return
        page = _target_page(call)
        origin = call.origin = page_origin(page)
        if first.origins is None:
            await _apply(call, first, None, page)
            return
        await _apply(call, policy.decide(tool, origin), origin, page)
        # Held through the call: PolicyOriginGuard, workflow steps and landings judge again on another origin.
        call.policy_pending = True
        call.policy = (policy, origin)


def judged_origin(call: PendingCall) -> str | None:
    """The origin the policy judged a call by, when its decision depends on the page (None: it does not)."""
    if not call.policy_pending or call.policy is None:
        return None
    return str(call.policy[1]) if call.policy[1] is not None else None


async def rejudge(call: PendingCall, origin: str | None) -> None:
    """Judge ``call`` again for a page of ``origin`` (it moved there mid-call); raises ``permission_denied`` when denied.

    Nothing to do for a call whose decision does not depend on the page, or on the origin already judged.
    """
    if call.policy is None or not call.policy_pending:
        return
    policy, judged = call.policy
    if origin == judged:
        return
    assert isinstance(policy, Policy)
    await _apply(call, policy.decide(call.tool.name, origin), origin)
    call.policy_pending = True  # _apply clears it; the call is still held to its policy
    call.policy = (policy, origin)


class OriginHold:
    """The origin a running call was judged for, held through its steps (``ToolRun``).

    Each step that reaches the page carries ``origin``; a runtime (or the bridge) that finds
    its page on another origin refuses the step with ``permission_denied``, reason
    ``origin_changed``, and ``moved_to`` judges the call again for the new origin before
    the step is sent again (denied: the call ends ``permission_denied``, nothing done there).
    """

    def __init__(self, call: PendingCall) -> None:
        self._call = call

    @property
    def origin(self) -> str | None:
        """The origin judged now (None once the decision no longer depends on the page)."""
        return judged_origin(self._call)

    async def moved_to(self, origin: str | None) -> None:
        """The page moved to ``origin`` mid-call: judge the call again (raises when denied)."""
        await rejudge(self._call, origin)


class PolicyOriginGuard:
    """Stage ``runtime``, first: the policy again when the page acted on now shows another origin than the one judged."""

    name = "policy_origins"
    stage = Stage.RUNTIME

    def applies(self, call: PendingCall) -> bool:
        if not call.policy_pending or call.policy is None:
            return False
        _, judged = call.policy
        return bool(page_origin(_target_page(call)) != judged)

    async def admit(self, call: PendingCall) -> None:
        await rejudge(call, page_origin(_target_page(call)))
