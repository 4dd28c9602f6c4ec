"""Deleting keys never inserted (the absent_deletes kind): every erasable filter is built with n
members, checked (no false negative: the usual invariant), then erases keys that were never
inserted; an erase the filter accepts (the absent key matched a member's fingerprint) removes that
member's copy, and every member is looked up again. The AMQ survey says it of cuckoo filters: "can
evict a different key's identical fingerprint and later cause a false negative".

The false negatives after the absent deletes carry a 95% Wilson interval over the absent deletes
(each an independent draw that may remove a member), printed as an interval on the count."""

from __future__ import annotations

import pandas as pd

import stats
from report_format import count, table
from result_set import ResultSet
from sections import common

SECTION = "absent_deletes"
KIND = "absent_deletes"


def count_interval(lost: int, deletes: int) -> tuple[float, float]:
    """The 95% interval of the false-negative count: Wilson's over the absent deletes, scaled."""
    low, high = stats.wilson(lost, deletes)
    return (low * deletes, high * deletes)


def render(results: ResultSet) -> str | None:
    present = [e.id for e in results.experiments(SECTION, kind=KIND)]
    if not present:
        return None
    frame = pd.concat([results.frame(e) for e in present], ignore_index=True)
    rows = []
    for r in frame.to_dict("records"):
        lost, deletes = int(r["false_negatives_after_absent_deletes"]), int(r["absent_deletes"])
        accepted = int(r["absent_deletes_accepted"])
        low, high = count_interval(lost, deletes)
        check = results.check(
            SECTION, f"deleting keys never inserted can cause false negatives: {r['filter']}",
            f"{r['filter']}: {lost:,} members lost [{low:,.0f}, {high:,.0f}] after {deletes:,} absent deletes"
            f" ({accepted:,} accepted)"
            f" over {count(r['key_sets'])} tables of {count(r['keys'])} keys",
            stats.verdict(lost, 1, claim="at_least"), "at least 1",
            measured=float(lost), expected=1.0, judged_as="at_least")
        rows.append([r["filter"], r["family"], count(r["keys"]), count(r["key_sets"]), f"{r['load_factor']:.3f}",
                     count(r["false_negatives"]), count(deletes), f"{count(accepted)} ({accepted / deletes:.3%})",
                     f"{count(lost)} [{low:,.0f}, {high:,.0f}]",
                     f"{lost / accepted:.3f}" if accepted else "–", check.cell])
    before = common.false_negative_check(results, SECTION, frame)
    return "\n".join([
        "## Deleting keys never inserted",
        "",
        *[f"- {results.title(e)}: {results.made_by(e)}" for e in present],
        "",
        "Each table (table i: members, absent keys and hash seed from the seed + i) is built with n members"
        " and checked: no member may be missing (the usual invariant, before any delete). Then n keys that"
        " were never inserted are erased. A filter accepts such an erase only when the absent key is a false"
        " positive, and the copy it removes is a member's; every member is then looked up again. The count"
        " of members lost carries its 95% interval (Wilson's over the absent deletes). Deletion is sound only"
        " for keys known to be members.",
        "",
        table(["filter", "family", "n", "tables", "load", "false negatives before", "absent deletes",
               "accepted (share)", "members lost after [95%]", "lost per accepted delete",
               "can cause false negatives"], rows),
        "",
        f"- Before the absent deletes: {before.prose}",
    ])
