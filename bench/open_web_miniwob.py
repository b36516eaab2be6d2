"""``--part miniwob`` of bench_open_web.py: our pages following 14 public MiniWoB++ tasks, 3 seeds each.

The pages are ours (``bench/pages/miniwob/``, each naming the MiniWoB++ task it follows; jQuery and jQuery UI
from npm at run time), seeded by ``?seed=N`` so each seed is a different episode: other words, names, targets
and positions. Each episode is a cold server process; the scripted agent reads the task's words **from the
page** (the yellow query, as MiniWoB's agents do), acts, and answers the reward line the page then shows
(``Last reward: 1.00``, or ``-1.00``). Success is a reward of 1.00 said by the tools. Per task and server:
successes, calls, bytes to the model, time; bytes per success = all bytes of the task's episodes / successes.

- @playwright/mcp: ``browser_navigate`` + ``browser_snapshot``, refs taken from the snapshot, its best tools
  where they save calls (``browser_fill_form`` for several fields, ``browser_select_option``), and a
  ``browser_snapshot`` after a click whose answer does not show what it needs (its click answers point at a
  snapshot file);
- mcp-actions: ``browser_navigate`` + ``page_read``, then ``page_act`` with every step the read made known,
  or single calls when the next step depends on what the last one showed.
"""

from __future__ import annotations

import argparse
import asyncio
import re
import statistics
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from open_web_kit import Agent, Script, TaskFailed, flat_text, open_session, parse_snapshot, ref_in

__all__ = ["MINIWOB", "SEEDS", "MiniTask", "miniwob_markdown", "run_miniwob", "summarise_miniwob"]

SEEDS = (1, 2, 3)
REWARD = r"Last reward: -?\d\.\d\d"


@dataclass
class MiniTask:
    name: str
    playwright: Script
    actions: Script


def _need(value: str | None, what: str) -> str:
    if value is None:
        raise TaskFailed(f"no {what}")
    return value


def _query(text: str, pattern: str) -> re.Match[str]:
    found = re.search(pattern, text)
    if found is None:
        raise TaskFailed(f"the page's query does not say {pattern!r}")
    return found


# -- the two agents' common moves ---------------------------------------------------------------


async def _ours_open(a: Agent, url: str) -> str:
    await a.call("browser_navigate", {"url": url})
    return await a.call("page_read", {})


async def _ours_reward(a: Agent, answer: str) -> str:
    """The reward line from the acting call's answer, else found on the page, else read."""
    found = re.search(REWARD, answer) or re.search(REWARD, await a.call("page_find", {"text": "Last reward"}))
    if found is None:  # page_find said no match: the page is read
        found = re.search(REWARD, await a.call("page_read", {}))
    return _need(found.group(0) if found else None, "reward line")


async def _ours_act(a: Agent, steps: list[tuple[str, dict[str, Any]]]) -> str:
    """The steps in one call (page_act), or the one step; a text that named several elements is retried
    from that step on with the first ref the refusal lists that is not a container (a list or menu)."""
    for _attempt in range(2):
        if len(steps) == 1:
            answer = await a.call(*steps[0], may_fail=True)
            failed = 0
        else:
            answer = await a.call("page_act", {"steps": [{"tool": tool, "arguments": arguments} for tool, arguments in steps]}, may_fail=True)
            at = re.search(r"step (\d+) \(", answer)
            failed = int(at.group(1)) - 1 if at else 0
        if not answer.startswith("ERROR"):
            return await _ours_reward(a, answer)
        ref = re.search(r"^(@e\d+) (?!list|menu|listbox|group)\w+", answer, re.MULTILINE) if "multiple_targets" in answer else None
        if ref is None:
            raise TaskFailed(answer[:300])
        tool, arguments = steps[failed]
        steps = [(tool, {**{k: v for k, v in arguments.items() if k != "text"}, "ref": ref.group(1)}), *steps[failed + 1 :]]
    raise TaskFailed(answer[:300])


def _click(name: str, read: str = "") -> tuple[str, dict[str, Any]]:
    """A click on what the read showed by that name (its ref), else by the text the task gives."""
    ref = _token_ref(read, rf'"{re.escape(name)}"')
    return ("page_click", {"ref": ref} if ref else {"text": name})


def _token_ref(text: str, pattern: str) -> str | None:
    """The ref of the first ``[role "name" @eN …]`` token (or ``@eN role "name"`` line) whose start matches ``pattern``:
    a line of our answers may hold several tokens, so the ref is the one inside the matching token."""
    found = re.search(rf"(?:{pattern})[^\]\[\n@]*(@e\d+)", text) or re.search(rf"(@e\d+) (?:{pattern})", text)
    return found.group(1) if found else None


async def _pw_open(a: Agent, url: str) -> str:
    await a.call("browser_navigate", {"url": url})
    return await a.call("browser_snapshot", {})


async def _pw_reward(a: Agent, answer: str) -> str:
    for _attempt in range(2):
        found = re.search(REWARD, answer)
        if found:
            return found.group(0)
        answer = await a.call("browser_snapshot", {})
    raise TaskFailed("no reward line in the snapshot")


async def _pw_click(a: Agent, snapshot: str, pattern: str, what: str) -> str:
    return await a.call("browser_click", {"element": what, "target": _need(ref_in(snapshot, pattern), what)})


def _pw_field_after(snapshot: str, label: str) -> str | None:
    """The unnamed text box of the node whose text is ``label`` (a label not tied to its field)."""
    for node in parse_snapshot(snapshot).walk():
        if re.search(rf"(?:generic|paragraph|text)[^\n]*: {re.escape(label)}$", node.line) and node.parent is not None:
            siblings = node.parent.children
            after = siblings[siblings.index(node) + 1 :] if node in siblings else []
            for sibling in after:
                ref = ref_in(sibling, r"textbox")
                if ref:
                    return ref
    return None


# -- the tasks ---------------------------------------------------------------------------------


async def tab_ours(a: Agent, url: str) -> str:
    text = await _ours_open(a, url)
    tab = _query(text, r"Click on (Tab #\d)\.").group(1)
    return await _ours_act(a, [_click(tab, text)])


async def tab_pw(a: Agent, url: str) -> str:
    text = await _pw_open(a, url)
    tab = _query(text, r"Click on (Tab #\d)\.").group(1)
    return await _pw_reward(a, await _pw_click(a, text, rf'link "{tab}"', tab))


_AUTO = r'starts with "([^"]+)" and ends with "([^"]+)"'


async def auto_ours(a: Agent, url: str) -> str:
    text = await _ours_open(a, url)
    start, end = _query(text, _AUTO).groups()
    filled = await a.call("page_fill", {"text": "Tags", "value": start})
    # The fill's answer lists the suggestions that appeared: the one that ends right is clicked, then Submit.
    item = next((m.group(1) for m in re.finditer(r'^\+ (?:@e\d+ option )?"([^"]+)"', filled, re.MULTILINE) if m.group(1).endswith(end) and m.group(1).startswith(start)), None)
    if item is None:
        item = next((m.group(1) for m in re.finditer(r'option "([^"]+)"', await a.call("page_find", {"role": "option"})) if m.group(1).endswith(end)), None)
    return await _ours_act(a, [_click(_need(item, f"suggestion ending {end!r}")), _click("Submit", text)])


async def auto_pw(a: Agent, url: str) -> str:
    text = await _pw_open(a, url)
    start, end = _query(flat_text(text), _AUTO).groups()
    typed = await a.call("browser_type", {"element": "Tags", "target": _need(ref_in(text, r'textbox "Tags'), "Tags"), "text": start, "slowly": True})
    pattern = rf'(?:option|listitem|generic)[^\n]*"?{re.escape(start)}[^"\n]*{re.escape(end)}"?'
    if ref_in(typed, pattern) is None:
        typed = await a.call("browser_snapshot", {})
    await a.call("browser_click", {"element": "suggestion", "target": _need(ref_in(typed, pattern) or ref_in(typed, rf": {re.escape(start)}\w*{re.escape(end)}$"), "suggestion")})
    return await _pw_reward(a, await _pw_click(a, text, r'button "Submit"', "Submit"))


_POSITION = r"Find the (\d+)(?:st|nd|rd|th) word in the paragraph"


def _nth_word(paragraph: str, nth: int) -> str:
    words = paragraph.split()
    return re.sub(r"[^a-zA-Z0-9]", "", words[nth - 1])


async def word_ours(a: Agent, url: str) -> str:
    text = await _ours_open(a, url)
    nth = int(_query(text, _POSITION).group(1))
    lines = text.splitlines()
    paragraph = lines[lines.index(next(line for line in lines if re.search(_POSITION, line))) + 1]
    box = _need(_token_ref(text, r"\[textbox"), "text box")
    return await _ours_act(a, [("page_fill", {"ref": box, "value": _nth_word(paragraph, nth)}), _click("Submit", text)])


async def word_pw(a: Agent, url: str) -> str:
    text = await _pw_open(a, url)
    nth = int(_query(text, _POSITION).group(1))
    paragraph = _query(text, r"- paragraph \[ref=[^\]]+\]: (.+)").group(1)
    await a.call("browser_type", {"element": "answer box", "target": _need(ref_in(text, r"- textbox"), "text box"), "text": _nth_word(paragraph, nth)})
    return await _pw_reward(a, await _pw_click(a, text, r'button "Submit"', "Submit"))


_SELECT = r"Select (.+) and click Submit\."


def _names(found: str) -> list[str]:
    return [] if found == "nothing" else [n.strip() for n in found.split(",")]


async def checkboxes_ours(a: Agent, url: str) -> str:
    text = await _ours_open(a, url)
    names = _names(_query(text, _SELECT).group(1))
    return await _ours_act(a, [*(_click(n, text) for n in names), _click("Submit", text)])


async def checkboxes_pw(a: Agent, url: str) -> str:
    text = await _pw_open(a, url)
    names = _names(_query(text, _SELECT).group(1))
    if names:
        fields = [{"name": n, "type": "checkbox", "target": _need(ref_in(text, rf'checkbox "{re.escape(n)}"'), n), "value": "true"} for n in names]
        await a.call("browser_fill_form", {"fields": fields})
    return await _pw_reward(a, await _pw_click(a, text, r'button "Submit"', "Submit"))


_ENTER = r'Enter "([^"]+)" into the text field'


async def enter_ours(a: Agent, url: str) -> str:
    text = await _ours_open(a, url)
    value = _query(text, _ENTER).group(1)
    return await _ours_act(a, [("page_fill", {"ref": _need(_token_ref(text, r"\[textbox"), "text box"), "value": value}), _click("Submit", text)])


async def enter_pw(a: Agent, url: str) -> str:
    text = await _pw_open(a, url)
    value = _query(text, _ENTER).group(1)
    await a.call("browser_type", {"element": "text field", "target": _need(ref_in(text, r"- textbox"), "text box"), "text": value})
    return await _pw_reward(a, await _pw_click(a, text, r'button "Submit"', "Submit"))


async def sequence_ours(a: Agent, url: str) -> str:
    text = await _ours_open(a, url)
    _query(text, r"Click button ONE, then click button TWO")
    return await _ours_act(a, [_click("ONE", text), _click("TWO", text)])


async def sequence_pw(a: Agent, url: str) -> str:
    text = await _pw_open(a, url)
    await _pw_click(a, text, r'button "ONE"', "ONE")
    return await _pw_reward(a, await _pw_click(a, text, r'button "TWO"', "TWO"))


_LIST = r"Select (.+) from the list and click Submit\."


async def list_ours(a: Agent, url: str) -> str:
    text = await _ours_open(a, url)
    item = _query(text, _LIST).group(1)
    return await _ours_act(a, [("page_select", {"ref": _need(_token_ref(text, r"\[combobox"), "list"), "values": [item]}), _click("Submit", text)])


async def list_pw(a: Agent, url: str) -> str:
    text = await _pw_open(a, url)
    item = _query(text, _LIST).group(1)
    await a.call("browser_select_option", {"element": "list", "target": _need(ref_in(text, r"combobox"), "list"), "values": [item]})
    return await _pw_reward(a, await _pw_click(a, text, r'button "Submit"', "Submit"))


_LOGIN = r'username "([^"]+)" and the password "([^"]+)"'


async def login_ours(a: Agent, url: str) -> str:
    text = await _ours_open(a, url)
    user, password = _query(text, _LOGIN).groups()
    return await _ours_act(a, [("page_fill", {"text": "Username", "value": user}), ("page_fill", {"text": "Password", "value": password}), _click("Login", text)])


async def login_pw(a: Agent, url: str) -> str:
    text = await _pw_open(a, url)
    user, password = _query(flat_text(text), _LOGIN).groups()
    fields = [{"name": label, "type": "textbox", "target": _need(_pw_field_after(text, label), f"{label} box"), "value": value} for label, value in (("Username", user), ("Password", password))]
    await a.call("browser_fill_form", {"fields": fields})
    return await _pw_reward(a, await _pw_click(a, text, r'button "Login"', "Login"))


async def collapsible_ours(a: Agent, url: str) -> str:
    text = await _ours_open(a, url)
    section = _query(text, r'"(Section #\d+)"').group(1)
    return await _ours_act(a, [_click(section, text), _click("Submit", text)])


async def collapsible_pw(a: Agent, url: str) -> str:
    text = await _pw_open(a, url)
    await _pw_click(a, text, r'tab "Section #', "section")
    return await _pw_reward(a, await _pw_click(a, text, r'button "Submit"', "Submit"))


_PASSWORD = r'Enter the password "([^"]+)" into both text fields'


async def password_ours(a: Agent, url: str) -> str:
    text = await _ours_open(a, url)
    password = _query(text, _PASSWORD).group(1)
    return await _ours_act(a, [("page_fill", {"text": "Password", "value": password}), ("page_fill", {"text": "Verify password", "value": password}), _click("Submit", text)])


async def password_pw(a: Agent, url: str) -> str:
    text = await _pw_open(a, url)
    password = _query(flat_text(text), _PASSWORD).group(1)
    fields = [{"name": label, "type": "textbox", "target": _need(_pw_field_after(text, label), f"{label} box"), "value": password} for label in ("Password", "Verify password")]
    await a.call("browser_fill_form", {"fields": fields})
    return await _pw_reward(a, await _pw_click(a, text, r'button "Submit"', "Submit"))


async def option_ours(a: Agent, url: str) -> str:
    text = await _ours_open(a, url)
    name = _query(text, _SELECT).group(1)
    return await _ours_act(a, [_click(name, text), _click("Submit", text)])


async def option_pw(a: Agent, url: str) -> str:
    text = await _pw_open(a, url)
    name = _query(text, _SELECT).group(1)
    await _pw_click(a, text, rf'radio "{re.escape(name)}"', name)
    return await _pw_reward(a, await _pw_click(a, text, r'button "Submit"', "Submit"))


_LINK = r'Click on the link "([^"]+)"\.'


async def link_ours(a: Agent, url: str) -> str:
    text = await _ours_open(a, url)
    word = _query(text, _LINK).group(1)
    # The word may also be plain text: the clickable that says it is taken by ref.
    return await _ours_act(a, [("page_click", {"ref": _need(_token_ref(text, rf'\[clickable "{re.escape(word)}"'), f"link {word!r}")})])


async def link_pw(a: Agent, url: str) -> str:
    text = await _pw_open(a, url)
    word = _query(text, _LINK).group(1)
    ref = ref_in(text, rf"\[cursor=pointer\]: {re.escape(word)}$")
    # The snapshot runs the links' words into the paragraph's text (no node, no ref): the tool also takes
    # "a unique element selector", so the agent names the element whose whole text is the word.
    clicked = await a.call("browser_click", {"element": word, "target": ref or f'text="{word}"'}, may_fail=True)
    if clicked.startswith("ERROR") and "strict mode violation" in clicked:  # the word is two links: the first
        clicked = await a.call("browser_click", {"element": word, "target": f'text="{word}" >> nth=0'})
    elif clicked.startswith("ERROR"):
        raise TaskFailed(clicked[:300])
    return await _pw_reward(a, clicked)


async def dialog_ours(a: Agent, url: str) -> str:
    text = await _ours_open(a, url)
    # The task says to close the dialog by its x: the button is taken from the read, else found.
    button = _token_ref(text, r'\[button "(?:Close|×|x)"') or _token_ref(await a.call("page_find", {"role": "button"}), r'button "(?:Close|×|x)"')
    return await _ours_act(a, [("page_click", {"ref": _need(button, "close button (the read showed none; page_find role button found none)")})])


async def dialog_pw(a: Agent, url: str) -> str:
    text = await _pw_open(a, url)
    _query(text, r'Close the dialog box by clicking the "x"')
    return await _pw_reward(a, await _pw_click(a, text, r'button "(?:Close|×|x)"', "close"))


_EMAIL = r"Find the email by (\w+) and (?:reply to them with the text \"([^\"]+)\"|forward that email to (\w+))"


async def email_ours(a: Agent, url: str) -> str:
    sender, reply, forward_to = _query(await _ours_open(a, url), _EMAIL).groups()
    opened = await a.call("page_click", {"text": sender}, may_fail=True)
    if opened.startswith("ERROR"):  # several threads by that sender: the first one
        await a.call("page_click", {"ref": _need(ref_in(opened, r"@e\d+"), "thread")})
    shown = await a.call("page_click", {"text": "Reply" if reply else "Forward"})
    # The reply or forward pane's fields and its send icon: from the answer, else read.
    if "textbox" not in shown:
        shown = await a.call("page_read", {})
    steps: list[tuple[str, dict[str, Any]]] = []
    # A read's [textbox … @eN] tokens, or an acting answer's revealed `+ @eN textbox "to"` lines.
    boxes = re.findall(r"textbox[^@\n]*(@e\d+)|(@e\d+) textbox", shown)
    boxes = [a or b for a, b in boxes]
    if reply:
        steps.append(("page_fill", {"ref": _need(boxes[-1] if boxes else None, "reply text box"), "value": reply}))
    else:
        steps.append(("page_fill", {"ref": _need(_token_ref(shown, r'textbox "to'), "to box"), "value": forward_to}))
    send = [m.group(1) or m.group(2) for m in re.finditer(r"\[?clickable (?:\"[^\"]*\" )?(@e\d+)|^\+ (@e\d+) clickable$", shown, re.MULTILINE)]
    if not send:  # the pane's icons: what page_observe lists to act on
        send = [m.group(1) for m in re.finditer(r"^(@e\d+) clickable", await a.call("page_observe", {}), re.MULTILINE)]
    steps.append(("page_click", {"ref": _need(send[-1] if send else None, "send icon (no unnamed clickable in the answer)")}))
    return await _ours_act(a, steps)


async def email_pw(a: Agent, url: str) -> str:
    text = await _pw_open(a, url)
    sender, reply, forward_to = _query(text, _EMAIL).groups()
    thread = next((n for n in parse_snapshot(text).walk() if "[cursor=pointer]" in n.line and any(c.line.endswith(f": {sender}") for c in n.children)), None)
    await a.call("browser_click", {"element": f"email from {sender}", "target": _need(ref_in(thread, r"cursor=pointer"), "thread")})
    text = await a.call("browser_snapshot", {})
    await _pw_click(a, text, rf"\[cursor=pointer\]: {'Reply' if reply else 'Forward'}$", "Reply" if reply else "Forward")
    text = await a.call("browser_snapshot", {})
    boxes = [m.group(1) for m in re.finditer(r"textbox[^\n]*\[ref=([^\]]+)\]", text)]
    if reply:
        await a.call("browser_type", {"element": "reply text", "target": _need(boxes[-1] if boxes else None, "reply box"), "text": reply})
    else:
        await a.call("browser_type", {"element": "to", "target": _need(boxes[0] if boxes else None, "to box"), "text": forward_to})
    # The send icon: the second unnamed clickable of the pane's bar (the first is the back arrow).
    icons = [m.group(1) for m in re.finditer(r"- generic \[ref=([^\]]+)\] \[cursor=pointer\]$", text, re.MULTILINE)]
    return await _pw_reward(a, await a.call("browser_click", {"element": "send", "target": _need(icons[1] if len(icons) > 1 else None, "send icon")}))


MINIWOB = [
    MiniTask("click-tab", tab_pw, tab_ours),
    MiniTask("use-autocomplete", auto_pw, auto_ours),
    MiniTask("find-word", word_pw, word_ours),
    MiniTask("click-checkboxes", checkboxes_pw, checkboxes_ours),
    MiniTask("enter-text", enter_pw, enter_ours),
    MiniTask("click-button-sequence", sequence_pw, sequence_ours),
    MiniTask("choose-list", list_pw, list_ours),
    MiniTask("login-user", login_pw, login_ours),
    MiniTask("click-collapsible", collapsible_pw, collapsible_ours),
    MiniTask("enter-password", password_pw, password_ours),
    MiniTask("click-option", option_pw, option_ours),
    MiniTask("click-link", link_pw, link_ours),
    MiniTask("click-dialog", dialog_pw, dialog_ours),
    MiniTask("email-inbox", email_pw, email_ours),
]


# -- running and reporting ---------------------------------------------------------------------


@dataclass
class Episode:
    task: str
    seed: int
    server: str
    ok: bool = False
    answer: str | None = None
    error: str | None = None
    calls: int = 0
    bytes_to_model: int = 0
    task_ms: float = 0.0
    call_log: list[dict[str, Any]] = field(default_factory=list)


async def episode(task: MiniTask, seed: int, server: str, base_url: str, args: argparse.Namespace, work: Path) -> Episode:
    """One cold episode of one task, one seed, on one server."""
    run = Episode(task.name, seed, server)
    async with open_session(server, args.peers_dir, args.browser_path, work, work / f"learned-{time.monotonic_ns()}") as (agent, _listing):
        script = task.playwright if server == "playwright-mcp" else task.actions
        started = time.perf_counter()
        try:
            run.answer = await asyncio.wait_for(script(agent, f"{base_url}miniwob/{task.name}.html?seed={seed}"), timeout=60)
            run.ok = run.answer == "Last reward: 1.00"
            if not run.ok:
                run.error = f"answered {run.answer!r}"
        except (TaskFailed, TimeoutError) as exc:
            run.error = str(exc) or type(exc).__name__
        run.task_ms = (time.perf_counter() - started) * 1000
        run.calls, run.bytes_to_model, run.call_log = agent.calls, agent.bytes_to_model, agent.log
    return run


async def run_miniwob(base_url: str, args: argparse.Namespace, work: Path) -> list[Episode]:
    runs: list[Episode] = []
    chosen = [t for t in MINIWOB if not args.only or t.name in args.only]
    for _repeat in range(args.runs):
        for task in chosen:
            for seed in SEEDS:
                for server in [s for s in ("playwright-mcp", "mcp-actions") if s in args.servers]:
                    one = await episode(task, seed, server, base_url, args, work)
                    runs.append(one)
                    print(f"{task.name:22} seed={seed} {server:15} calls={one.calls} bytes={one.bytes_to_model:>7,} task={one.task_ms:6.0f} ms {'ok' if one.ok else 'FAILED: ' + str(one.error)[:200]}", file=sys.stderr)
    return runs


def summarise_miniwob(runs: list[Episode]) -> list[dict[str, Any]]:
    """Per task and server (and a total row per server): successes, calls, bytes, time, bytes per success."""
    rows: list[dict[str, Any]] = []
    keys = list(dict.fromkeys((r.task, r.server) for r in runs)) + [("total", s) for s in dict.fromkeys(r.server for r in runs)]
    for task, server in keys:
        group = [r for r in runs if r.server == server and task in ("total", r.task)]
        good = sum(r.ok for r in group)
        total_bytes = sum(r.bytes_to_model for r in group)
        rows.append(
            {
                "task": task,
                "server": server,
                "episodes": len(group),
                "ok": good,
                "calls": sum(r.calls for r in group),
                "bytes_to_model": total_bytes,
                "bytes_per_success": round(total_bytes / good) if good else None,
                "task_ms_median": round(statistics.median(r.task_ms for r in group), 1),
                "task_ms_total": round(sum(r.task_ms for r in group), 1),
                "errors": [f"seed {r.seed}: {r.error}" for r in group if not r.ok],
            }
        )
    for row in rows:
        peer = next((p for p in rows if p["task"] == row["task"] and p["server"] == "playwright-mcp"), None)
        if row["server"] == "mcp-actions" and peer:
            row["vs_playwright"] = {
                "calls": round(row["calls"] / peer["calls"], 3) if peer["calls"] else None,
                "bytes_per_success": round(row["bytes_per_success"] / peer["bytes_per_success"], 3) if row["bytes_per_success"] and peer["bytes_per_success"] else None,
                "time": round(row["task_ms_total"] / peer["task_ms_total"], 3) if peer["task_ms_total"] else None,
            }
    return rows


def miniwob_markdown(rows: list[dict[str, Any]]) -> str:
    lines = ["| task | server | success | calls | bytes | bytes per success | time (sum; median an episode) |", "|---|---|---:|---:|---:|---:|---:|"]
    for row in rows:
        ratio = row.get("vs_playwright") or {}
        per = f"{row['bytes_per_success']:,}" if row["bytes_per_success"] else "—"
        per += f" = {ratio['bytes_per_success']:.2f}×" if ratio.get("bytes_per_success") else ""
        calls = f"{row['calls']}" + (f" = {ratio['calls']:.2f}×" if ratio.get("calls") else "")
        timing = f"{row['task_ms_total'] / 1000:.2f} s; {row['task_ms_median'] / 1000:.2f} s" + (f" = {ratio['time']:.2f}×" if ratio.get("time") else "")
        lines.append(f"| {row['task']} | {row['server']} | {row['ok']}/{row['episodes']} | {calls} | {row['bytes_to_model']:,} | {per} | {timing} |")
    return "\n".join(lines)
