"""More open-web tasks for bench_open_web.py (issue 44): questions on Debian's manuals, the docs' own search, a checkout form with selects.

The manuals are real pages written by others, served as Debian installs them (``open_web_kit.DOCS``:
``python3.11-doc`` and ``postgresql-doc-15``, linked into the site as ``python/`` and ``postgresql/``;
nothing copied into the repository). Each question has one scripted agent per server that decides from
the answers' text alone, **finding first and reading only when finding is not enough**:

- @playwright/mcp: ``browser_navigate``, ``browser_find {text}`` (its search of the snapshot, with a few
  lines of context), and ``browser_snapshot`` only when the find's answer does not hold the answer;
- mcp-actions: ``browser_navigate``, ``page_find {text}``; when that does not hold the answer, the term
  or heading it found is read (``page_read {ref}``), then the page part by part (``page_read`` with the
  cursor each part ends with) until the answer shows.

The answer is the first match of the task's pattern in what the tools said (whitespace-insensitive:
a peer's snapshot splits a signature into one node per token); success is that answer holding what
the task expects.
"""

from __future__ import annotations

import json
import re
from typing import Any

from open_web_kit import Agent, Script, Task, TaskFailed, flat_text, ref_in

__all__ = ["DOC_TASKS", "FORM_TASKS", "answer_in"]


def answer_in(text: str, pattern: str) -> str | None:
    """The first match of ``pattern`` in ``text``, or in ``text`` without whitespace (signatures split per token)."""
    found = re.search(pattern, text) or re.search(pattern.replace(" ", ""), re.sub(r"\s+", "", text))
    return found.group(0) if found else None


def _ours_question(find: dict[str, Any], pattern: str) -> Script:
    async def script(a: Agent, url: str) -> str:
        await a.call("browser_navigate", {"url": url})
        found = await a.call("page_find", find)
        answer = answer_in(found, pattern)
        if answer:
            return answer
        # The find named the term or heading but not what it says: read that element, then the page.
        wanted = re.escape(str(find.get("text", "")))
        ref = ref_in(found, rf'@e\d+ (?:term|heading) "[^"\n]*{wanted}')
        if ref:
            answer = answer_in(await a.call("page_read", {"ref": ref}), pattern)
            if answer:
                return answer
        arguments: dict[str, Any] = {}
        for _part in range(16):
            text = await a.call("page_read", arguments)
            answer = answer_in(text, pattern)
            if answer:
                return answer
            more = re.search(r'page_read (\{"cursor": "[^"]+"\})\]\s*$', text)
            if more is None:
                break
            arguments = json.loads(more.group(1))
        raise TaskFailed(f"read the page without finding {pattern!r}")

    return script


def _pw_question(find: str, pattern: str) -> Script:
    async def script(a: Agent, url: str) -> str:
        await a.call("browser_navigate", {"url": url})
        answer = answer_in(flat_text(await a.call("browser_find", {"text": find})), pattern)
        if answer:
            return answer
        answer = answer_in(flat_text(await a.call("browser_snapshot", {})), pattern)
        if answer:
            return answer
        raise TaskFailed(f"the snapshot has no {pattern!r}")

    return script


def _question(name: str, page: str, goal: str, expect: list[str], text: str, pattern: str, **ours: Any) -> Task:
    return Task(name, page, goal, expect, _pw_question(text, pattern), _ours_question({"text": text, **ours}, pattern))


DOC_TASKS = [
    # Python 3.11's manual (Sphinx): a definition list, running text, signatures, a table, a bullet list.
    _question("py-glossary-eafp", "python/glossary.html", "Python glossary (definition list): what is EAFP?", ["Easier to ask for forgiveness than permission"], "EAFP", r"Easier to ask for forgiveness than permission"),
    _question("py-round-half", "python/library/functions.html", "Built-in functions (running text, inline code): what do round(0.5) and round(-0.5) give?", ["are 0"], "round(0.5)", r"round\(0\.5\) and round\(-0\.5\) are 0"),
    _question("py-lru-cache-signature", "python/library/functools.html", "functools (a signature): lru_cache's parameters and defaults", ["maxsize=128", "typed=False"], "lru_cache", r"lru_cache\(maxsize=128,\s*typed=False\)"),
    _question("py-strftime-table", "python/library/datetime.html", "datetime's format codes (a table): what does %j mean?", ["Day of the year as a zero-padded decimal number"], "%j", r"Day of the year as a zero-padded decimal number"),
    _question("py-argparse-prog", "python/library/argparse.html", "argparse (a bullet list): the default of ArgumentParser's prog", ["os.path.basename(sys.argv[0])"], "prog", r"os\.path\.basename\(sys\.argv\[0\]\)"),
    # PostgreSQL 15's manual (DocBook): variable lists, tables, a function table's signature, the glossary.
    _question("pg-max-connections", "postgresql/runtime-config-connection.html", "PostgreSQL settings (a variable list): max_connections' default", ["100"], "max_connections", r"default is typically \d+ connections"),
    _question("pg-work-mem", "postgresql/runtime-config-resource.html", "PostgreSQL settings (a variable list): work_mem's default", ["4MB"], "work_mem", r"default value is four megabytes \(4MB\)"),
    _question("pg-bigint-range", "postgresql/datatype-numeric.html", "Numeric types (a table): bigint's range", ["-9223372036854775808 to +9223372036854775807"], "bigint", r"-9223372036854775808 to \+9223372036854775807"),
    _question("pg-split-part", "postgresql/functions-string.html", "String functions: split_part's signature", ["split_part(stringtext,delimitertext,ninteger)→text"], "split_part", r"split_part\(stringtext,delimitertext,ninteger\)→text"),
    _question("pg-glossary-vacuum", "postgresql/glossary.html", "PostgreSQL glossary (a definition list, near its end): what is Vacuum?", ["The process of removing outdated"], "Vacuum", r"The process of removing outdated"),
]


# The docs' own search page (Sphinx's searchtools.js over searchindex.js, offline): search, open the result, say the signature.

SEARCHED = r"lru_cache\(maxsize=128,\s*typed=False\)"


async def search_playwright(a: Agent, url: str) -> str:
    await a.call("browser_navigate", {"url": url})
    box = ref_in(await a.call("browser_find", {"regex": "searchbox|textbox"}), r"searchbox|textbox")
    if box is None:
        raise TaskFailed("no search box in the find's answer")
    await a.call("browser_type", {"element": "search box", "target": box, "text": "lru_cache", "submit": True})
    found = await a.call("browser_find", {"text": "functools.lru_cache"})
    link = ref_in(found, r'link "functools\.lru_cache"')
    if link is None:  # the results come after the index loads: look again
        link = ref_in(await a.call("browser_find", {"text": "functools.lru_cache"}), r'link "functools\.lru_cache"')
    if link is None:
        raise TaskFailed("no result link functools.lru_cache")
    await a.call("browser_click", {"element": "functools.lru_cache", "target": link})
    # Find first; the snapshot only when the find's lines do not hold the whole signature.
    answer = answer_in(flat_text(await a.call("browser_find", {"text": "lru_cache"})), SEARCHED)
    return answer or _need(answer_in(flat_text(await a.call("browser_snapshot", {})), SEARCHED), "the signature")


async def search_actions(a: Agent, url: str) -> str:
    await a.call("browser_navigate", {"url": url})
    # The search page's box is the one text box: filled and sent in one call, then the result found by name.
    await a.call("page_fill", {"text": "search", "value": "lru_cache", "submit": True})
    found = await a.call("page_find", {"text": "functools.lru_cache", "role": "link"})
    link = ref_in(found, r'link "functools\.lru_cache"')
    if link is None:
        link = ref_in(await a.call("page_find", {"text": "functools.lru_cache", "role": "link"}), r'link "functools\.lru_cache"')
    if link is None:
        raise TaskFailed("no result link functools.lru_cache")
    await a.call("page_click", {"ref": link})
    answer = answer_in(await a.call("page_find", {"text": "lru_cache"}), SEARCHED)
    return answer or _need(answer_in(await a.call("page_read", {}), SEARCHED), "the signature")


def _need(value: str | None, what: str) -> str:
    if value is None:
        raise TaskFailed(f"no {what}")
    return value


DOC_TASKS.append(Task("py-search", "python/search.html", "the Python docs' own search page (offline): search lru_cache, open the result, say its signature", ["maxsize=128", "typed=False"], search_playwright, search_actions))


# A checkout form with selects, following Bootstrap's "Checkout" example (bench/pages/checkout.html).

CHECKOUT = {"First name": "Ada", "Last name": "Lovelace", "Username": "ada", "Email": "ada@example.com", "Address": "12 St James's Square", "Zip": "SW1Y 4JH"}
SELECTS = {"Country": "United Kingdom", "State": "England"}
ORDERED = r"Order placed for Ada Lovelace, 12 St James's Square, England, United Kingdom SW1Y 4JH, paid by PayPal\. Order BS-\d+"


async def checkout_playwright(a: Agent, url: str) -> str:
    await a.call("browser_navigate", {"url": url})
    text = await a.call("browser_snapshot", {})

    def target(pattern: str, what: str) -> str:
        return _need(ref_in(text, pattern), what)

    fields = [{"name": label, "type": "textbox", "target": target(rf'textbox "{label}', label), "value": value} for label, value in CHECKOUT.items()]
    fields.append({"name": "Country", "type": "combobox", "target": target(r'combobox "Country', "Country"), "value": SELECTS["Country"]})
    fields.append({"name": "PayPal", "type": "radio", "target": target(r'radio "PayPal"', "PayPal"), "value": "true"})
    await a.call("browser_fill_form", {"fields": fields})
    # The State list is filled once a country is chosen: its options are read again.
    text = await a.call("browser_snapshot", {})
    await a.call("browser_select_option", {"element": "State", "target": target(r'combobox "State', "State"), "values": [SELECTS["State"]]})
    answer = answer_in(flat_text(await a.call("browser_click", {"element": "Continue to checkout", "target": target(r'button "Continue to checkout"', "Continue")})), ORDERED)
    return answer or _need(answer_in(flat_text(await a.call("browser_snapshot", {})), ORDERED), "the order line")


async def checkout_actions(a: Agent, url: str) -> str:
    await a.call("browser_navigate", {"url": url})
    await a.call("page_read", {})
    steps: list[dict[str, Any]] = [{"tool": "page_fill", "arguments": {"text": label, "value": value}} for label, value in CHECKOUT.items()]
    steps += [{"tool": "page_select", "arguments": {"text": label, "values": [value]}} for label, value in SELECTS.items()]
    steps += [{"tool": "page_click", "arguments": {"text": "PayPal"}}, {"tool": "page_click", "arguments": {"text": "Continue to checkout"}}]
    acted = await a.call("page_act", {"steps": steps})
    return answer_in(acted, ORDERED) or _need(answer_in(await a.call("page_read", {}), ORDERED), "the order line")


FORM_TASKS = [
    Task("checkout-selects", "checkout.html", "Bootstrap's checkout example: fill the address, choose country then state (selects), pay by PayPal, say the order", ["Order BS-"], checkout_playwright, checkout_actions),
]
