"""The measurable claims of the three source texts (the AMQ survey, the Support Optimality paper
and the quotient filter article: plots/reference.py names them in full) and of the papers they
cite, each with the source's words and number, and the verdict the section that measures it
computed.

A claim names the checks that measure it (section, words in the check's claim, optionally the
start of its evidence). Its verdict is the worst of theirs: a claim holds only where every
measurement of it holds. A claim no check measures is "not measured", with the reason. Nothing
here judges a number itself; the sections do, with the tolerance they print.
"""

from __future__ import annotations

from dataclasses import dataclass

import reference
import stats
from report_format import table
from result_set import Check, ResultSet, verdict_cell

# Worst first: the verdict a claim takes from several checks.
SEVERITY = (stats.CONTRADICTED, stats.PARTLY, stats.REPRODUCED, stats.NOT_MEASURED)


@dataclass(frozen=True)
class Measure:
    """Which checks measure a claim: those of `section` whose claim contains `words` and whose
    evidence starts with `evidence` (any evidence when empty)."""

    section: str
    words: str
    evidence: str = ""

    def matches(self, check: Check) -> bool:
        return (check.section == self.section and self.words in check.claim
                and check.evidence.startswith(self.evidence))


@dataclass(frozen=True)
class Claim:
    text: str  # the source text that makes the claim or cites the paper that does
    source: str
    words: str  # the source's words, shortened
    number: str  # the source's number, as it states it
    measured_by: tuple[Measure, ...] = ()
    note: str = ""  # where the source is wrong, or our configuration differs, and how
    missing: str = ""  # why nothing measures it, for a claim no check covers


S000, S001, S002 = "the AMQ survey", "the Support Optimality paper", "the quotient filter article"
# Each text's heading in the report: its title in full.
HEADINGS = {S000: "T" + reference.AMQ_SURVEY[1:],
            S001: f"The Support Optimality paper ({reference.SUPPORT_OPTIMALITY})",
            S002: "T" + reference.QF_ARTICLE[1:]}
CUCKOO = "cuckoo filter paper (Fan et al., CoNEXT 2014)"
ACF = "adaptive cuckoo filters (Mitzenmacher, Pontarelli, Reviriego), cited by the Support Optimality paper"
FUSE = "binary fuse paper (Graf, Lemire), cited by the AMQ survey"

CLAIMS = (
    # The AMQ survey: formulas, the cuckoo lab and the head-to-head at 1%.
    Claim(S000, S000, "space-optimal cost is 1.44 log2(1/eps) bits per key", "9.6 bits/key at 1%",
          (Measure("space", "bloom at ε ="), Measure("one_percent", "the AMQ survey's Bloom (optimal)", "bloom "))),
    Claim(S000, S000, "FPR ~ 2b/2^f", "0.0078 (b = 4, f = 10)",
          (Measure("seed_lab", "the AMQ survey's theory 2b/2^f"),),
          "Wrong: 2b/2^f counts all 2b probed slots as full. Only a share α is, and fingerprint 0 marks"
          " an empty slot; 1 − (1 − 1/(2^f − 1))^(2bα) is reproduced in the same section."),
    Claim(S000, S000, "FPR is set by f alone ... not by table fullness", "–",
          (Measure("cuckoo_load", "the FPR is set by f alone"),),
          "Wrong: the chance a probed slot holds a match is the load α times 2^−f, so the FPR grows"
          " with the fill; the survey's lab read one load only."),
    Claim(S000, S000, "f = log2(1/eps) + log2(2b)", "10 bits at 1%, b = 4",
          (Measure("seed_lab", "the AMQ survey's fingerprint bits"),)),
    Claim(S000, S000, "lab: measured FPR", "0.0074 over 30,000 probes",
          (Measure("seed_lab", "the AMQ survey's measured FPR"),)),
    Claim(S000, S000, "power-of-two sizing: bits/key lands at 10.92 instead of the ideal 10.5",
          "8,192 buckets, load 0.9155, 10.92 bits/key, 0 failures",
          (Measure("seed_lab", "the AMQ survey's bucket count"), Measure("seed_lab", "the AMQ survey's load factor"),
           Measure("seed_lab", "the AMQ survey's bits/key"), Measure("seed_lab", "the AMQ survey's insert failures"))),
    Claim(S000, S000, "~0.73 eviction hops per insert", "21,953 hops for 30,000 keys",
          missing="The survey's insert evicts from i1 whenever i1 is full, without trying i2; ours follows"
                  " the paper (both buckets first), and the hashes differ, so the counts are not like"
                  " for like (seed_lab shows ours beside it)."),
    Claim(S000, S000, "cuckoo, b = 4, 95% load: about 10.5 bits/key at 1%", "10.5",
          (Measure("one_percent", "the AMQ survey's cuckoo, b = 4"),)),
    Claim(S000, S000, "cuckoo only beats space-optimal Bloom below ... eps ~ 0.4%", "0.4%",
          (Measure("sweep", "below ε ≈ 0.4%"),)),
    Claim(S000, "cuckoo filter authors (README of efficient/cuckoofilter), cited by the AMQ survey",
          "less space than Bloom for low false positive rates (< 3%)", "3%",
          (Measure("sweep", "false positive rates below 3%"),),
          "Our cuckoo is the standard filter; the authors' figure does not name its variant, and the"
          " paper's semi-sorted buckets are smaller than the standard filter we build."),
    Claim(S000, S000, "the XOR family is what actually beats Bloom on space at 1%", "–",
          (Measure("one_percent", "at 1% the XOR family beats Bloom"),)),
    Claim(S000, S000, "at 1% [cuckoo] is slightly bigger [than Bloom]", "10.5 against 9.6",
          (Measure("one_percent", "at 1% cuckoo is slightly bigger"),)),
    Claim(S000, S000, "quotient: (log2(n/load) + log2(1/eps) + 3)/load", "~33 bits/key at n = 10^6, 90% load",
          (Measure("quotient", "the AMQ survey's (log2(n/α) + r + 3)/α"),),
          "Wrong: the quotient is the slot's address and is never stored; the quotient filter article's (r + 3)/α holds."),
    Claim(S000, S000, "XOR: 7-bit fingerprints x 1.23 ~ 8.6 bits/key", "8.6 at 1%",
          (Measure("one_percent", "the AMQ survey's XOR"),)),
    Claim(S000, "XOR filter paper (Graf, Lemire), cited by the AMQ survey", "8-bit fingerprints: 9.84 bits/key",
          "9.84", (Measure("static", "XOR filter paper"),)),
    Claim(S000, S000, "binary fuse: at 1% about 7.5 bits/key", "7.5",
          (Measure("one_percent", "the AMQ survey's binary fuse"),),
          "The survey's own table gives ~1.13k, and 1.13 × 7 = 7.9, which our 3-wise filter matches;"
          " 7.5 is the 4-wise filter's (~1.075 × 7), reproduced. The survey mixes the two."),
    Claim(S000, FUSE, "within 13% of the lower bound (an 8%-of-bound variant)", "13%, 8%",
          (Measure("static", "within 13% of the lower bound"), Measure("static", "within 8% of the lower bound"))),
    Claim(S000, FUSE, "construction is more than twice as fast as XOR-filter construction", "2×",
          (Measure("static", "construction more than twice as fast"),
           Measure("speed", "construction more than twice as fast")),
          "Warm builds (static, micro warm) reproduce it; a cold build adds page faults to both and"
          " the ratio drops (speed section)."),
    Claim(S000, "RocksDB wiki, cited by the AMQ survey", "Ribbon ~7 bits/key at 1% FPR", "7",
          (Measure("one_percent", "the AMQ survey's Ribbon", "rocksdb_ribbon"),),
          "Judged on RocksDB's own Ribbon, the filter the wiki measures; our ribbon (w = 128) and"
          " ribbon64 are other configurations, set beside it in the one_percent section."),
    Claim(S000, "RocksDB wiki and RocksDB 7.8's filter_policy.h, cited by the AMQ survey",
          "Ribbon ~30% smaller than Bloom at equal FPR", "30%",
          (Measure("one_percent", "RocksDB's Ribbon ~30% smaller"),)),
    Claim(S000, "Ribbon paper and RocksDB, cited by the AMQ survey", "Standard128Ribbon ~6% over the lower bound",
          "6%", (Measure("static", "Standard128Ribbon ~6% over"),)),
    # The cuckoo paper's load limits, which the AMQ survey's lab leans on.
    Claim(S000, CUCKOO, "b = 4 reaches ~95% load", "95%",
          (Measure("cuckoo_load", "b = 4 reaches ~95% load"),)),
    Claim(S000, CUCKOO, "once f is large enough for the table, b = 4 reaches ~95% whatever f", "–",
          (Measure("cuckoo_load", "the fingerprint width no longer moves"),)),
    Claim(S000, CUCKOO, "short fingerprints lower the load (i ^ hash(f) reaches 2^f buckets)", "–",
          (Measure("cuckoo_load", "short fingerprints lower the load"),)),
    Claim(S000, "two-choice cuckoo hashing thresholds (Cain, Sanders, Wormald; Fernholz, Ramachandran),"
                " the limits under the ~95% the AMQ survey relies on",
          "buckets of b = 2, 4, 8 fill to 0.897, 0.980, above 0.99", "0.897, 0.980, > 0.99",
          (Measure("cuckoo_load", "inserts start to fail at load"),),
          "The thresholds are limits for unbounded tables and kicks; ours has 2^20 slots and 500 kicks."),
    # The Support Optimality paper: the adaptive cuckoo filters.
    Claim(S001, S001, "static filters incur εn false positives in expectation (|Q| = 1)", "εn",
          (Measure("adaptive", "a static filter incurs εn"),)),
    Claim(S001, S001, "the Cuckooing ACF incurs O(log^4 n) expected false positives", "O(log^4 n)",
          (Measure("adaptive", "the Cuckooing ACF incurs O(log^4 n)"),),
          "The O() has no constant: the section fixes it at the smallest n measured and judges the"
          " growth. Ours has 4 tables of 1 slot at 95% load; the analysis assumes 2 tables at a load"
          " bounded away from 1/2."),
    Claim(S001, S001, "improves upon a Cyclic ACF and a Swapping ACF of the same size", "–",
          (Measure("adaptive", "acf_cuckooing at least as good as Cyclic and Swapping"),),
          "Reproduced at the paper's premise (2 tables, load 0.45); at load 0.95 with 4 tables it loses"
          " cells at A/S = 10 and 100 (adaptive section, cell by cell). The same fix in 2 x 4 buckets"
          " (acf_cuckooing_2x4, b ≠ 1 unlike the premise) is judged apart there, at both loads."),
    Claim(S001, S001, "on network traces, stronger than a vanilla Cuckoo Filter", "–",
          (Measure("adaptive", "on a trace: FPR below the vanilla cuckoo filter's"),)),
    Claim(S001, S001, "Cyclic and Swapping ACFs may incur Ω(n) false positives with |Q| = O(1)", "Ω(n)",
          missing="The bound needs an adversary built against the filter's state; our repeated-query"
                  " streams draw random non-members, so no experiment here can show it."),
    Claim(S001, ACF, "a false positive, once reported, is adapted away", "about one per attacked non-member",
          (Measure("adaptive", "a false positive, once reported, is adapted away"),)),
    Claim(S001, S001, "no filter of this family is adaptive against an adversary (lower bound)", "–",
          missing="A lower bound over every adversary; a measurement can only exhibit one attack."),
    # The quotient filter article: quotient filters, counting and locality.
    Claim(S002, S002, "quotient filter: (r + 3)/α bits per element", "(r + 3)/α",
          (Measure("quotient", "the quotient filter article's (r + metadata)/α"),)),
    Claim(S002, "RSQF/CQF paper (Pandey et al.), cited by the quotient filter article",
          "metadata from 3 bits to 2.125 bits per slot", "(r + 2.125)/α",
          (Measure("quotient", "2.125 metadata bits per slot"),)),
    Claim(S002, "Knuth's linear probing analysis, cited by the quotient filter article", "mean displacement α/(2(1−α))",
          "α/(2(1−α))", (Measure("quotient", "Knuth's α/(2(1−α))"),),
          "Holds from load 0.10 to 0.95; only the 0.99 step misses (quotient section)."),
    Claim(S002, S002, "at α ≤ 0.75 the expected cluster length is O(1) (typically 2 to 6 slots)", "2 to 6",
          (Measure("quotient", "a cluster is typically 2 to 6 slots"),),
          "Judged on the upper end, the one that keeps a lookup in a cache line; below load 0.75 our"
          " clusters are shorter than the article's lower end of 2 (the evidence lists them)."),
    Claim(S002, S002, "quotient filter lookup: 1 cache line", "1",
          (Measure("locality", "a quotient lookup touches"),)),
    Claim(S002, S002, "RSQF lookup: 1 cache line (SIMD POPCNT + PDEP)", "1",
          (Measure("locality", "a rsqf lookup touches"),),
          "At r = 7 a 64-slot block holds 64 × (7 + 2.125) bits = 73 bytes, more than one 64-byte"
          " line, so a lookup that reads its block's metadata and remainders can touch two."),
    Claim(S002, S002, "cuckoo filter lookup: 2 cache lines", "2", (Measure("locality", "a cuckoo lookup touches"),)),
    Claim(S002, S002, "Bloom lookup: k = 0.693 m/n random misses", "k",
          (Measure("locality", "a bloom lookup touches"),)),
    Claim(S002, S002, "the CQF outperforms the Count-Min sketch on skewed (Zipfian) distributions", "–",
          (Measure("counting", "the CQF's counters outperform the Count-Min sketch"),)),
)


def judge(claim: Claim, checks: list[Check]) -> tuple[str, str, str]:
    """(verdict, ours, tolerance): the worst verdict of the checks that measure the claim, with that
    check's evidence and tolerance; "not measured" with the reason when none does."""
    found = [c for c in checks if any(m.matches(c) for m in claim.measured_by)]
    if not found:
        sections = ", ".join(dict.fromkeys(m.section for m in claim.measured_by))
        reason = claim.missing or f"no result: the {sections} section had no data to judge it"
        return stats.NOT_MEASURED, reason, "–"
    worst = min(found, key=lambda c: SEVERITY.index(c.verdict))
    ours = worst.evidence
    if len(found) > 1:
        counts = ", ".join(f"{n} {v}" for v in SEVERITY if (n := sum(c.verdict == v for c in found)))
        ours += f" (the worst of {len(found)} checks: {counts})"
    return worst.verdict, ours, worst.tolerance


def rows(results: ResultSet) -> list[tuple[Claim, str, str, str]]:
    """Every claim with its verdict, what we measured and the tolerance."""
    return [(claim, *judge(claim, results.checks)) for claim in CLAIMS]


def cell(text: str) -> str:
    """Text safe inside a Markdown table cell (|Q| would split it)."""
    return text.replace("|", "\\|")


def sections_of(claim: Claim) -> str:
    names = ", ".join(dict.fromkeys(m.section for m in claim.measured_by))
    return f" [{names}]" if names else ""


def section(results: ResultSet) -> list[str]:
    """The claims tables, one per source text, for the report."""
    judged = rows(results)
    lines = ["### The source texts' claims", "",
             "Every measurable claim of the three source texts and of the papers they cite. A claim's verdict"
             " is the worst of the checks that measure it (the section named in brackets prints them all),"
             " so a claim holds only where every measurement of it holds."]
    for text in dict.fromkeys(c.text for c in CLAIMS):
        body = [[cell(claim.source), cell(claim.words), cell(claim.number), cell(ours) + sections_of(claim),
                 cell(tolerance), verdict_cell(verdict), cell(claim.note or "–")]
                for claim, verdict, ours, tolerance in judged if claim.text == text]
        lines += ["", f"**{HEADINGS[text]}**", "",
                  table(["source", "the source says", "its number", "ours [section]", "tolerance", "verdict",
                         "where the source is wrong or we differ"], body)]
    return lines


def closing_note(results: ResultSet) -> list[str]:
    """One Markdown line per claim with its verdict, for a closing note."""
    return [f"- {claim.text}{'' if claim.source == claim.text else f' ({claim.source})'}: \"{claim.words}\""
            f" ({claim.number}): **{verdict}** — {ours}" for claim, verdict, ours, _ in rows(results)]
