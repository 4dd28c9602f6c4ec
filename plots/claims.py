"""The source documents' measurable claims (the AMQ survey, Support Optimality and the Quotient
Filter article: reference.py gives their titles), each with the source's words and number, who
made it and where it was quoted, its kind and the conditions its source states, and the verdict
the checks that measure it give.

A claim names the checks that measure it (Measure: section, words in the check's claim,
optionally the start of its evidence). Only like-for-like checks decide its verdict, the worst of
theirs: a claim holds only where every like measurement of it holds. A check is set aside, shown
with its label and never deciding, when its Measure is marked unlike (another configuration, our
own variant, another workload) or when it ran outside the conditions the source states (today: a
load above the source's). A claim with no deciding check is "not measured", with the reason.

A claim's kind says how a number is judged: a bound (at_most, at_least) as a bound, a limit a
finite measurement approaches from one side as such (stats.verdict's "limit_below"). Where a
section kept a check's numbers but read the claim as an equality, the claim judges those numbers
again as its kind; otherwise the section's verdict stands (comparisons and growth rates are judged
in their sections). Nothing here judges a number a section did not compute.

A claim that follows from the sizing rule alone (by_construction: the filter is built to the
figure) is counted apart from measured reproductions.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import reference
import stats
from report_format import table
from result_set import Check, ResultSet, verdict_cell

# Worst first: the verdict a claim takes from several checks.
SEVERITY = (stats.CONTRADICTED, stats.PARTLY, stats.REPRODUCED, stats.NOT_MEASURED)

# The kinds of claim.
EQUAL = "equal"  # a number, within the tolerance the check prints
AT_MOST = "at_most"  # an upper bound
AT_LEAST = "at_least"  # a lower bound
LIMIT = "limit"  # a limit a finite measurement approaches from below (it may only undershoot)
COMPARISON = "comparison"  # between filters, or between settings of one
GROWTH = "growth"  # a rate of growth
# The kinds whose numbers a claim judges itself, as stats.verdict's claim argument.
READINGS = {AT_MOST: "at_most", AT_LEAST: "at_least", LIMIT: "limit_below"}

# How a claim is counted in the totals: its verdict, or this for a reproduced sizing rule.
BY_CONSTRUCTION = "by construction"
COUNTED = (stats.REPRODUCED, stats.PARTLY, stats.CONTRADICTED, BY_CONSTRUCTION, stats.NOT_MEASURED)


@dataclass(frozen=True)
class Conditions:
    """The conditions the source states for its claim, as it states them. Checks record the load
    they ran at (Check.conditions["load"]); one above max_load is not under the source's
    conditions. The other conditions are stated for the reader and enforced by marking a Measure
    unlike."""

    load: str = ""
    max_load: float | None = None
    n: str = ""
    workload: str = ""
    filters: str = ""

    def text(self) -> str:
        parts = [("load", self.load), ("n", self.n), ("workload", self.workload), ("filters", self.filters)]
        return "; ".join(f"{name} {value}" for name, value in parts if value) or "none stated"

    def unmet_by(self, check: Check) -> str:
        """Why the check ran outside these conditions; "" when it did not (or cannot tell)."""
        load = check.conditions.get("load")
        if self.max_load is not None and load is not None and load > self.max_load:
            return f"not under the source's conditions: load {load:.3g} above its {self.max_load:g}"
        return ""


@dataclass(frozen=True)
class Measure:
    """Which checks measure a claim: those of `section` whose claim contains `words` and whose
    evidence starts with `evidence` (any evidence when empty). A check is matched by the first
    Measure of its claim that matches it, so an unlike Measure set before a broader one takes
    its checks. like_for_like=False: shown as our finding with `unlike`, the reason, never
    deciding."""

    section: str
    words: str
    evidence: str = ""
    like_for_like: bool = True
    unlike: str = ""

    def matches(self, check: Check) -> bool:
        return (check.section == self.section and self.words in check.claim
                and check.evidence.startswith(self.evidence))


@dataclass(frozen=True)
class Claim:
    document: str  # the source document whose table shows the claim
    made_by: str  # who made the claim: the paper, not whoever quoted it
    words: str  # the source's words, shortened
    number: str  # the source's number, as it states it
    measured_by: tuple[Measure, ...] = ()
    note: str = ""  # where the source is wrong, or our configuration differs, and how
    missing: str = ""  # why nothing measures it, for a claim no check covers
    kind: str = EQUAL
    conditions: Conditions = field(default_factory=Conditions)
    quoted_in: str = ""  # the source document that quotes it; "" when it makes it or none does
    by_construction: str = ""  # how the sizing rule alone gives the figure, when it does

    @property
    def source(self) -> str:
        """Who made it, and where it was quoted."""
        if self.quoted_in:
            return f"{self.made_by}, quoted in {self.quoted_in}"
        if self.made_by in TITLES:
            return self.made_by
        return f"{self.made_by}, quoted in none of the source documents"


SURVEY, SUPPORT, ARTICLE = reference.SURVEY, reference.SUPPORT_OPTIMALITY, reference.QUOTIENT_ARTICLE
TITLES = {SURVEY: reference.SURVEY_TITLE, SUPPORT: reference.SUPPORT_OPTIMALITY_TITLE,
          ARTICLE: reference.QUOTIENT_ARTICLE_TITLE}
CUCKOO = "cuckoo filter paper (Fan et al., CoNEXT 2014)"
ACF = "adaptive cuckoo filters (Mitzenmacher, Pontarelli, Reviriego, ALENEX 2018)"
FUSE = "binary fuse paper (Graf, Lemire, ACM JEA 2022)"
XOR_PAPER = "XOR filter paper (Graf, Lemire, ACM JEA 2020)"
ROCKSDB = "RocksDB (its wiki, \"RocksDB Bloom Filter\", and include/rocksdb/filter_policy.h)"

# Why the adaptive section's A/S grids do not decide Support Optimality's claims.
GRID_NOT_TRACES = ("a uniform synthetic A/S grid; the paper makes the claim about network traces"
                   " (its Section 4)")
NOT_PREMISE = "4 tables of 1 slot at load 0.95; the analysis assumes 2 tables of 1 slot at load below 1/2"
OUR_VARIANT = "our variant, which the paper never had"
SYNTHETIC_TRACE = "a synthetic Zipf trace; the paper's claim is about network traces"
STATE_READER = ("an adversary that reads the filter's state, at 4 tables of 1 slot (acf_cuckooing_2x4: 2 of 4) and"
                " load 0.95; the theorem's queries do not see the state, and it assumes 2 tables of 1 slot at"
                " load below 1/2 (its Section 5 proves no filter of the family adaptive against an adversary)")

CLAIMS = (
    # The AMQ survey: formulas, the cuckoo lab and the head-to-head at 1%.
    Claim(SURVEY, "Bloom filter analysis (Broder, Mitzenmacher, Internet Mathematics 2004)",
          "space-optimal cost is 1.44 log2(1/eps) bits per key", "9.6 bits/key at 1%",
          (Measure("space", "bloom at ε ="), Measure("one_percent", "the AMQ survey's Bloom (optimal)", "bloom ")),
          quoted_in=SURVEY, conditions=Conditions(filters="Bloom at its optimal k"),
          by_construction="our Bloom is sized m = 1.44·n·log2(1/ε) bits"),
    Claim(SURVEY, CUCKOO, "an upper bound on the FPR: 2b/2^f (the survey: \"FPR ~ 2b/2^f\")",
          "0.0078 (b = 4, f = 10)",
          (Measure("seed_lab", "the AMQ survey's theory 2b/2^f"),),
          "The survey's \"~\" reads the paper's upper bound as the rate: 2b/2^f counts all 2b probed slots"
          " as full, but only a share α is, and fingerprint 0 marks an empty slot, so the measured rate lies"
          " under it; 1 − (1 − 1/(2^f − 1))^(2bα) is reproduced in the same section.",
          kind=AT_MOST, quoted_in=SURVEY, conditions=Conditions(load="any (the bound counts every slot full)",
                                                                  filters="b = 4, f = 10 (the survey's lab)")),
    Claim(SURVEY, SURVEY, "FPR is set by f alone ... not by table fullness", "–",
          (Measure("cuckoo_load", "the FPR is set by f alone"),),
          "Wrong: the chance a probed slot holds a match is the load α times 2^−f, so the FPR grows"
          " with the fill; the survey's lab read one load only.",
          kind=COMPARISON, conditions=Conditions(load="any", filters="cuckoo, one f")),
    Claim(SURVEY, SURVEY, "f = log2(1/eps) + log2(2b)", "10 bits at 1%, b = 4",
          (Measure("seed_lab", "the AMQ survey's fingerprint bits"),),
          by_construction="our lab sizes f with the same formula"),
    Claim(SURVEY, SURVEY, "lab: measured FPR", "0.0074 over 30,000 probes",
          (Measure("seed_lab", "the AMQ survey's measured FPR"),),
          conditions=Conditions(n="30,000 keys, 30,000 probes", filters="b = 4, f = 10, 500 kicks")),
    Claim(SURVEY, SURVEY, "power-of-two sizing: bits/key lands at 10.92 instead of the ideal 10.5",
          "8,192 buckets, load 0.9155, 10.92 bits/key, 0 failures",
          (Measure("seed_lab", "the AMQ survey's bucket count"), Measure("seed_lab", "the AMQ survey's load factor"),
           Measure("seed_lab", "the AMQ survey's bits/key"), Measure("seed_lab", "the AMQ survey's insert failures")),
          conditions=Conditions(n="30,000", filters="b = 4, f = 10, 500 kicks")),
    Claim(SURVEY, SURVEY, "~0.73 eviction hops per insert", "21,953 hops for 30,000 keys",
          (Measure("seed_lab", "the AMQ survey's ~0.73 eviction hops per insert, on its own insertion rule"),
           Measure("seed_lab", "the paper's insertion rule (both buckets before any eviction)", like_for_like=False,
                   unlike="the cuckoo filter paper's insert, not the survey's: its hops beside the claim")),
          "Judged on cuckoo_survey_insert, the survey's rule (i1 only; when i1 is full, evict from it) on the"
          " survey's lab, against the spread of one table over independent seeds: the hashes differ"
          " (blake2b of strings there, a 64-bit mixer here), which the spread over seeds covers. Our cuckoo"
          " follows the paper (both buckets before any eviction); its hops are set aside, shown beside.",
          conditions=Conditions(n="30,000", filters="the survey's insertion rule, b = 4, f = 10, 500 kicks")),
    Claim(SURVEY, SURVEY, "deleting a key that was never inserted can ... cause a false negative (cuckoo"
                          " deletion is only sound for known members)", "–",
          (Measure("absent_deletes", "never inserted can cause false negatives: cuckoo"),
           Measure("absent_deletes", "never inserted can cause false negatives", like_for_like=False,
                   unlike="a filter the survey does not name here (the quotient family)")),
          "Judged on every erasable cuckoo filter; the quotient family's cells are set aside, shown beside."
          " The survey's counting-Bloom parallel is not measured: no counting Bloom filter here.",
          kind=AT_LEAST, conditions=Conditions(workload="absent keys erased from a built filter",
                                               filters="cuckoo filters")),
    Claim(SURVEY, SURVEY, "cuckoo, b = 4, 95% load: about 10.5 bits/key at 1%", "10.5",
          (Measure("one_percent", "the AMQ survey's cuckoo, b = 4"),),
          conditions=Conditions(load="0.95", filters="cuckoo, b = 4")),
    Claim(SURVEY, SURVEY, "cuckoo only beats space-optimal Bloom below ... eps ~ 0.4%", "0.4%",
          (Measure("sweep", "below ε ≈ 0.4%"),), kind=COMPARISON,
          conditions=Conditions(load="0.95", filters="standard cuckoo, b = 4, against space-optimal Bloom")),
    Claim(SURVEY, "the cuckoo filter authors' README (github.com/efficient/cuckoofilter)",
          "less space than Bloom for low false positive rates (< 3%)", "3%",
          (Measure("sweep", "false positive rates below 3%", like_for_like=False,
                   unlike="our cuckoo is the standard filter; the README does not name its variant, and the"
                          " paper's semi-sorted buckets take less space, which moves the crossing up"),),
          kind=COMPARISON, conditions=Conditions(filters="the authors' cuckoo filter (variant not named)")),
    Claim(SURVEY, SURVEY, "the XOR family is what actually beats Bloom on space at 1%", "–",
          (Measure("one_percent", "at 1% the XOR family beats Bloom"),), kind=COMPARISON),
    Claim(SURVEY, SURVEY, "at 1% [cuckoo] is slightly bigger [than Bloom]", "10.5 against 9.6",
          (Measure("one_percent", "at 1% cuckoo is slightly bigger"),), kind=COMPARISON),
    Claim(SURVEY, SURVEY, "quotient: (log2(n/load) + log2(1/eps) + 3)/load", "~33 bits/key at n = 10^6, 90% load",
          (Measure("quotient", "the AMQ survey's (log2(n/α) + r + 3)/α"),),
          f"Wrong: the quotient is the slot's address and is never stored; {ARTICLE}'s (r + 3)/α holds.",
          conditions=Conditions(load="0.90", n="10^6")),
    Claim(SURVEY, SURVEY, "XOR: 7-bit fingerprints x 1.23 ~ 8.6 bits/key", "8.6 at 1%",
          (Measure("one_percent", "the AMQ survey's XOR"),),
          by_construction="our XOR array is sized 1.23·n + 32 slots of f bits"),
    Claim(SURVEY, XOR_PAPER, "8-bit fingerprints: 9.84 bits/key", "9.84",
          (Measure("static", "xor8 bits/key"),), quoted_in=SURVEY,
          by_construction="our XOR array is sized 1.23·n + 32 slots of 8 bits"),
    Claim(SURVEY, SURVEY, "binary fuse: at 1% about 7.5 bits/key", "7.5",
          (Measure("one_percent", "the AMQ survey's binary fuse"),),
          "The survey's own table gives ~1.13k, and 1.13 × 7 = 7.9, which our 3-wise filter matches;"
          " 7.5 is the 4-wise filter's (~1.075 × 7), reproduced. The survey mixes the two."),
    Claim(SURVEY, FUSE, "within 13% of the lower bound (an 8%-of-bound variant)", "13%, 8%",
          (Measure("static", "within 13% of the lower bound"), Measure("static", "within 8% of the lower bound")),
          kind=AT_MOST, quoted_in=SURVEY, conditions=Conditions(n="large n (the size factor grows at small n)"),
          by_construction="our arrays are sized with the paper's size factors (1.125 and 1.075 at n = 10^6)"),
    Claim(SURVEY, FUSE, "construction is more than twice as fast as XOR-filter construction", "2×",
          (Measure("static", "construction more than twice as fast"),
           Measure("speed", "construction more than twice as fast as XOR's, cold builds", like_for_like=False,
                   unlike="a cold build adds first-touch page faults to both, a cost of the allocation, not"
                          " of the construction the paper times (the speed section calls the warm ratio the"
                          " like one)"),
           Measure("speed", "construction more than twice as fast")),
          kind=AT_LEAST, quoted_in=SURVEY, conditions=Conditions(n="10^6", workload="warm builds")),
    Claim(SURVEY, ROCKSDB, "Ribbon ~7 bits/key at 1% FPR", "7",
          (Measure("one_percent", "the AMQ survey's Ribbon", "rocksdb_ribbon"),
           Measure("one_percent", "the AMQ survey's Ribbon", "ribbon", like_for_like=False,
                   unlike="our ribbon (w = 128), ribbon_frac and ribbon64 are our configurations, not RocksDB's")),
          "Judged on RocksDB's own Ribbon, the filter the wiki measures.", quoted_in=SURVEY,
          conditions=Conditions(filters="RocksDB's Standard128Ribbon, NewRibbonFilterPolicy(9.9)")),
    Claim(SURVEY, ROCKSDB, "Ribbon ~30% smaller than Bloom at equal FPR", "30%",
          (Measure("one_percent", "RocksDB's Ribbon ~30% smaller"),), kind=COMPARISON,
          conditions=Conditions(filters="RocksDB's Ribbon and Bloom")),
    Claim(SURVEY, SURVEY, "Ribbon (RocksDB) ~5% over the lower bound (its cheat-sheet)", "5%",
          (Measure("static", "Ribbon (RocksDB) ~5% over"),),
          "The survey names no source for this cell (its 7 bits/key it takes from the RocksDB wiki).",
          conditions=Conditions(filters="RocksDB's Ribbon")),
    # The cuckoo paper's load limits, which the survey's lab leans on.
    Claim(SURVEY, CUCKOO, "b = 4 reaches ~95% load", "95%",
          (Measure("cuckoo_load", "b = 4 reaches ~95% load"),), kind=AT_LEAST, quoted_in=SURVEY,
          conditions=Conditions(filters="b = 4, 500 kicks")),
    Claim(SURVEY, CUCKOO, "once f is large enough for the table, b = 4 reaches ~95% whatever f", "–",
          (Measure("cuckoo_load", "the fingerprint width no longer moves"),), kind=COMPARISON),
    Claim(SURVEY, CUCKOO, "short fingerprints lower the load (i ^ hash(f) reaches 2^f buckets)", "–",
          (Measure("cuckoo_load", "short fingerprints lower the load"),), kind=COMPARISON),
    Claim(SURVEY, "two-choice cuckoo hashing thresholds (Cain, Sanders, Wormald, SODA 2007; Fernholz,"
                  " Ramachandran, SODA 2007)",
          "buckets of b = 2, 4, 8 fill to 0.897, 0.980, above 0.99", "0.897, 0.980, > 0.99",
          (Measure("cuckoo_load", "inserts start to fail at load"),),
          "The limits under the survey's ~95%, shown with its claims; ours has 2^20 slots and 500 kicks,"
          " so it can only undershoot them.",
          kind=LIMIT, conditions=Conditions(n="unbounded tables", workload="unbounded kicks")),
    # Issue 25 (item 7): the survey's claims the table lacked.
    Claim(SURVEY, SURVEY, "production sizing targets <= 95% load at b = 4: the failure cliff is sharp, not gradual", "–",
          (Measure("cuckoo_load", "the failure cliff is sharp"),),
          "The survey gives no width for \"sharp\": read as the table going from its first failed insert to a"
          " step with half its inserts failing within 0.05 of load (cuckoo_load.CLIFF_SPAN).",
          kind=AT_MOST, conditions=Conditions(load="from the first failed insert", filters="cuckoo, b = 4, 500 kicks")),
    Claim(SURVEY, SURVEY, "quotient: no insert failures until the table is genuinely full; they die politely,"
                          " lookups trending toward linear scans (a degradation story, not a cliff)", "0 failures",
          (Measure("quotient", "no insert failures until the table"), Measure("quotient", "quotient filters die politely")),
          "The slowing is judged on the classic QF, the survey's filter (Bender et al., 2012); the RSQF's lookups"
          " hardly slow (the article's stability claim).",
          kind=AT_MOST, conditions=Conditions(load="below full (the fill sweep's steps)")),
    Claim(SURVEY, SURVEY, "past ~90% load, clusters merge and lookups degrade toward linear scans", "~90%",
          (Measure("quotient", "past ~90% load, clusters merge"),),
          "Read as stated: past that load the classic QF's clusters merge (their count falls while their mean"
          " length grows). Where the count peaks, the evidence shows and nothing judges: linear probing's"
          " clusters merge at every load, and the source does not say merging begins at 90%.",
          conditions=Conditions(filters="classic quotient filter (linear probing)")),
    Claim(SURVEY, SURVEY, "quotient: space grows with log n, (log2(n/load) + log2(1/eps) + 3)/load",
          "one bit per slot per doubling of n",
          (Measure("quotient", "quotient space grows with log n"),),
          "Wrong for the reason its formula is: the quotient is the slot's address and is never stored, so at one"
          " ε the bits per slot are r + metadata at every n; bits/key moves with the load only.",
          kind=GROWTH, conditions=Conditions(n="10^4 to 10^6", workload="one ε (1%)")),
    Claim(SURVEY, SURVEY, "XOR construction can fail (small probability at the 1.23 density); you simply retry with"
                          " a new seed", "small (no figure)",
          (Measure("build_failures", "XOR construction can fail with a small probability"),
           Measure("build_failures", "a failed XOR construction is retried")),
          "The survey gives no figure for \"small\" (the XOR paper, which would, is not among the sources): read"
          " as at most one first build in ten at every n (build_failures.SMALL_SHARE), on the lower end of each"
          " n's 95% interval.",
          kind=AT_MOST, conditions=Conditions(n="any (the build_failures sweeps: 100 to 10^7)",
                                              filters="XOR, 1.23·n + 32 slots")),
    Claim(SURVEY, XOR_PAPER, "the lower bound is log2(1/eps) bits per key; Bloom uses 44% more than that", "44%",
          (Measure("one_percent", "Bloom uses 44% more"),), quoted_in=SURVEY,
          conditions=Conditions(filters="Bloom at its optimal k"),
          by_construction="our Bloom is sized m = 1.44·n·log2(1/ε) bits"),
    Claim(SURVEY, XOR_PAPER, "XOR filters ~23% more [than the lower bound]", "~23% (asymptotically)",
          (Measure("one_percent", "XOR filters ~23% more"),), quoted_in=SURVEY,
          by_construction="our XOR array is sized 1.23·n + 32 slots of k bits; its FPR is 2^−k"),
    Claim(SURVEY, SURVEY, "XOR over the lower bound: 29.6% at k = 7", "29.6%",
          (Measure("one_percent", "XOR 29.6% over the lower bound"),),
          by_construction="1.23 × 7 bits/key over log2(1/0.01)"),
    Claim(SURVEY, SURVEY, "cuckoo (b = 4) over the lower bound: ~58%", "~58% (10.5 bits/key at 1%, 95% load)",
          (Measure("one_percent", "cuckoo (b = 4) ~58% over"),), conditions=Conditions(load="0.95", filters="cuckoo, b = 4")),
    Claim(SURVEY, FUSE, "an 8%-of-bound variant exists at slightly slower queries", "slower (no figure)",
          (Measure("speed", "the 4-wise (8%-of-bound) variant has slightly slower queries"),),
          "The source gives no figure for \"slightly\": judged on the direction, with the ratio shown.",
          kind=COMPARISON, quoted_in=SURVEY, conditions=Conditions(n="10^6", workload="3-wise and 4-wise in one run")),
    Claim(SURVEY, SURVEY, "XOR lookup: 3 reads", "3", (Measure("locality", "XOR lookup: 3 reads"),),
          "Measured as distinct cache lines: two reads in one line count once."),
    Claim(SURVEY, SURVEY, "binary fuse lookup: 3-4 reads", "3 (3-wise), 4 (4-wise)",
          (Measure("locality", "binary fuse lookup: 3-4 reads"),),
          "Measured as distinct cache lines: two reads in one line count once."),
    Claim(SURVEY, SURVEY, "Bloom: FPR ~ 0.6185^(m/n) at optimal k = (m/n) ln 2", "0.6185^(m/n)",
          (Measure("sweep", "Bloom FPR ~ 0.6185^(m/n)"),),
          conditions=Conditions(filters="Bloom at the whole k nearest (m/n) ln 2")),
    # Support Optimality: the adaptive cuckoo filters.
    Claim(SUPPORT, SUPPORT, "static filters incur εn false positives in expectation (|Q| = 1)", "εn",
          (Measure("adaptive", "a static filter incurs εn"),), conditions=Conditions(workload="one query repeated n times")),
    Claim(SUPPORT, SUPPORT, "the Cuckooing ACF incurs O(log^4 n) expected false positives", "O(log^4 n)",
          (Measure("adaptive", "acf_cuckooing_ff, |Q|", like_for_like=False, unlike=OUR_VARIANT),
           Measure("adaptive", "acf_cuckooing_2x4, |Q|", like_for_like=False, unlike=OUR_VARIANT),
           Measure("adaptive", "at Support Optimality's premise (k = 2 tables of b = 1 slot"),
           Measure("adaptive", "the Cuckooing ACF incurs O(log^4 n)", like_for_like=False, unlike=NOT_PREMISE),
           Measure("adaptive", "the Cuckooing ACF's false positives stay bounded in n", like_for_like=False,
                   unlike=STATE_READER)),
          "The O() has no constant: the section fixes it at the smallest n measured and judges the growth.",
          missing="No repeated-query stream ran the Cuckooing ACF at the theorem's premise (2 tables of 1"
                  " slot, load below 1/2).",
          kind=GROWTH, conditions=Conditions(load="below 1/2", workload="|Q| = O(1) queries repeated, n queries over n stored elements",
                                             filters="Cuckooing ACF, 2 tables of 1 slot")),
    Claim(SUPPORT, SUPPORT, "improves upon a Cyclic ACF and a Swapping ACF of the same size", "–",
          (Measure("adaptive", "acf_cuckooing_2x4 at least as good", like_for_like=False, unlike=OUR_VARIANT),
           Measure("adaptive", "acf_cuckooing at least as good as Cyclic and Swapping", like_for_like=False,
                   unlike=GRID_NOT_TRACES),
           Measure("adaptive", "on a trace: FPR at most the Cyclic and Swapping", "adapt_trace_synth",
                   like_for_like=False, unlike=SYNTHETIC_TRACE),
           Measure("adaptive", "on a trace: FPR at most the Cyclic and Swapping")),
          "On the uniform A/S grids it holds at the paper's premise (2 tables, load 0.45) and loses cells at"
          " load 0.95 with 4 tables (adaptive section, cell by cell).",
          kind=COMPARISON, conditions=Conditions(workload="network traces", filters="same size")),
    Claim(SUPPORT, SUPPORT, "on network traces, stronger than a vanilla Cuckoo Filter", "–",
          (Measure("adaptive", "on a trace: FPR below the vanilla", "adapt_trace_synth", like_for_like=False,
                   unlike=SYNTHETIC_TRACE),
           Measure("adaptive", "on a trace: FPR below the vanilla")),
          kind=COMPARISON, conditions=Conditions(workload="network traces")),
    Claim(SUPPORT, SUPPORT, "Cyclic and Swapping ACFs may incur Ω(n) false positives with |Q| = O(1)", "Ω(n)",
          (Measure("adaptive", "acf_cyclic_ranges, state-reading adversary", like_for_like=False,
                   unlike="the ACF paper's JEA variant with different ranges (selector 0 owns half the codes);"
                          " the Support Optimality paper's Cyclic ACF gives every selector all 2^f"),
           Measure("adaptive", "Cyclic and Swapping ACFs may incur Ω(n)")),
          "Measured with one adversary (adapt_state_reading): it reads which slots a non-member collides with"
          " and spends at most D distinct queries on the bucket of its first false positive; Ω(n) is judged as"
          " a fitted exponent of at least 1 over n, with L proportional to n.",
          kind=GROWTH, conditions=Conditions(workload="an adversary that reads the filter's state; |Q| = O(1)",
                                             filters="the ACF paper's Cyclic ACF (4 x 1) and Swapping ACF (2 x 4)")),
    Claim(SUPPORT, ACF, "a false positive, once reported, is adapted away", "about one per attacked non-member",
          (Measure("adaptive", "acf_cuckooing: a false positive", like_for_like=False,
                   unlike="Support Optimality's Cuckooing ACF, which the ACF paper never had"),
           Measure("adaptive", "acf_cuckooing_ff: a false positive", like_for_like=False, unlike=OUR_VARIANT),
           Measure("adaptive", "acf_cuckooing_2x4: a false positive", like_for_like=False, unlike=OUR_VARIANT),
           Measure("adaptive", "a false positive, once reported, is adapted away")),
          quoted_in=SUPPORT, kind=AT_MOST, conditions=Conditions(filters="the ACF paper's Cyclic and Swapping ACFs")),
    Claim(SUPPORT, SUPPORT, "no filter of this family is adaptive against an adversary (lower bound)", "–",
          (Measure("adaptive", "not adaptive against an adversary that follows its element", like_for_like=False,
                   unlike="one adversary against the Cuckooing ACFs; the bound is over every adversary"),),
          missing="A lower bound over every adversary; a measurement can only exhibit one attack.", kind=AT_LEAST),
    # The Quotient Filter article: quotient filters, counting and locality.
    Claim(ARTICLE, ARTICLE, "quotient filter: (r + 3)/α bits per element", "(r + 3)/α",
          (Measure("quotient", "the Quotient Filter article's (r + metadata)/α"),),
          by_construction="our slots hold r remainder bits and 3 metadata bits"),
    Claim(ARTICLE, "RSQF/CQF paper (Pandey, Bender, Johnson, Patro, SIGMOD 2017)",
          "metadata from 3 bits to 2.125 bits per slot", "(r + 2.125)/α",
          (Measure("quotient", "2.125 metadata bits per slot"),), quoted_in=ARTICLE,
          by_construction="our RSQF and CQF blocks hold 2 × 64 + 8 metadata bits per 64 slots"),
    Claim(ARTICLE, "Knuth's linear probing analysis (The Art of Computer Programming, vol. 3, 6.4)",
          "mean displacement α/(2(1−α))", "α/(2(1−α))",
          (Measure("quotient", "mean displacement over independent tables is Knuth's"),),
          "Judged over independent tables against Knuth's exact sum for the same slots and keys, of which"
          " α/(2(1−α)) is the large-table limit (quotient section). The article cites Knuth's analysis"
          " for the cluster length, not for this formula.",
          conditions=Conditions(n="the table's own m and n (the formula is the limit for tables large against"
                                  " 1/(1−α)²)")),
    Claim(ARTICLE, ARTICLE, "at α ≤ 0.75 the expected cluster length is O(1) (typically 2 to 6 slots)", "2 to 6",
          (Measure("quotient", "a cluster is typically 2 to 6 slots"),),
          "Judged on the upper end, the one that keeps a lookup in a cache line; below load 0.75 our"
          " clusters are shorter than the article's lower end of 2 (the evidence lists them).",
          kind=AT_MOST, conditions=Conditions(load="≤ 0.75", max_load=0.75)),
    Claim(ARTICLE, ARTICLE, "quotient filter lookup: 1 cache line", "1",
          (Measure("locality", "a quotient lookup touches"),),
          missing="The article states the one line for α ≤ 0.75 (clusters of 2 to 6 slots); no locality"
                  " experiment here traced the quotient filter at such a load.",
          conditions=Conditions(load="≤ 0.75", max_load=0.75)),
    Claim(ARTICLE, ARTICLE, "RSQF lookup: 1 cache line (SIMD POPCNT + PDEP)", "1",
          (Measure("locality", "a rsqf lookup touches"),),
          "At r = 7 a 64-slot block holds 64 × (7 + 2.125) bits = 73 bytes, more than one 64-byte"
          " line, so a lookup that reads its block's metadata and remainders can touch two."),
    Claim(ARTICLE, ARTICLE, "cuckoo filter lookup: 2 cache lines", "2", (Measure("locality", "a cuckoo lookup touches"),)),
    Claim(ARTICLE, ARTICLE, "Bloom lookup: k = 0.693 m/n random misses", "k",
          (Measure("locality", "a bloom lookup touches"),)),
    Claim(ARTICLE, ARTICLE, "the CQF outperforms the Count-Min sketch on skewed (Zipfian) distributions", "–",
          (Measure("counting", "the CQF's counters outperform the Count-Min sketch"),), kind=COMPARISON,
          conditions=Conditions(workload="skewed (Zipfian) counts")),
    Claim(ARTICLE, ARTICLE, "a quotient filter supports dynamic deletions without false negatives", "0",
          (Measure("churn", "deleting members leaves no false negatives: quotient"),
           Measure("churn", "deleting members leaves no false negatives: rsqf"),
           Measure("churn", "deleting members leaves no false negatives: cqf"),
           Measure("churn", "deleting members leaves no false negatives", like_for_like=False,
                   unlike="a cuckoo filter; the article says it of quotient filters")),
          "Deletions of members only: deleting a key never inserted can remove a member's entry"
          " (absent_deletes section).",
          conditions=Conditions(workload="members erased and inserted (churn)", filters="the quotient family")),
    # Issue 25 (item 7): the article's claims the table lacked.
    Claim(ARTICLE, ARTICLE, "standard QF at high load: linear probing cluster growth at α > 80%", "80%",
          (Measure("quotient", "linear probing cluster growth at α > 80%"),),
          "Read, as the AMQ survey's ~90% is, as stated: past that load clusters merge and grow.",
          conditions=Conditions(filters="classic quotient filter")),
    Claim(ARTICLE, ARTICLE, "fast rejection: if is-occupied[fq] == 0, return false in a single memory read", "1 read",
          (Measure("locality", "fast rejection"),),
          "Measured as cache lines: a uniform non-member's quotient is unoccupied with probability 1 − runs/slots,"
          " so at least that share of the traced absent lookups must touch one line of the filter's storage.",
          kind=AT_LEAST, conditions=Conditions(filters="the quotient family", workload="uniform non-members")),
    Claim(ARTICLE, ARTICLE, "RSQF: stable up to α = 95% load", "95%", (Measure("quotient", "RSQF: stable up to"),),
          "The article gives no measure of \"stable\": read as no lookup's median taking more than twice its"
          " half-full time (quotient.STABLE_RATIO).",
          kind=AT_LEAST, conditions=Conditions(load="up to 0.95", filters="RSQF")),
    Claim(ARTICLE, ARTICLE, "a tunable false-positive probability ε ≈ 2^−r", "2^−r",
          (Measure("quotient", "ε ≈ 2^−r"), Measure("one_percent", "ε ≈ 2^−r")),
          "2^−r is the limit as the table fills: the FPR is about α·2^−r, so it is judged at each experiment's"
          " fullest step, and no interval may lie above it.",
          kind=LIMIT, conditions=Conditions(load="as the table fills (its table: 95%)")),
    Claim(ARTICLE, ARTICLE, "two quotient filters can be merged, or one doubled in capacity, without storing or"
                            " re-hashing the original keys", "–",
          (Measure("quotient", "without the original keys"),)),
    Claim(ARTICLE, ARTICLE, "merged in a single sequential pass; doubled by one sequential scan (O(m))", "O(m)",
          (Measure("quotient", "merged in a single sequential pass"),),
          "Judged as the least-squares exponent of the time against m over m = 2^14 to 2^22 slots (the"
          " quotient-family micro-benchmarks: merge into a 90%-full table, double a 90%-full one), at most"
          " 1 + 0.1: an O(m log m) sort would show 1 + 1/ln m, about 1.07, so the check tells linear from"
          " quadratic, not from m log m; and the largest tables leave the caches.",
          kind=GROWTH, conditions=Conditions(load="0.9", filters="the quotient family")),
)


# The counting Bloom filter (issue 23), appended apart from the table above. Fan et al. make both
# claims; the AMQ survey quotes the space ("counting Bloom at ~4x space").
COUNTING_BLOOM = "counting Bloom filter paper (Fan, Cao, Almeida, Broder, IEEE/ACM ToN 2000)"
CLAIMS += (
    Claim(SURVEY, COUNTING_BLOOM, "counting Bloom at ~4x space", "~4×",
          (Measure("space", "takes four times a Bloom filter's bits at the same FPR"),),
          "Four bits per position at Bloom's m/n and k; the FPR at the same target is measured beside Bloom's.",
          quoted_in=SURVEY, by_construction="4-bit counters where a Bloom filter of the same target has bits"),
    Claim(SURVEY, COUNTING_BLOOM, "4-bit counters overflow with probability at most m (e ln 2 / 16)^16",
          "1.37e-15 × m",
          (Measure("space", "counters at 15 follow the binomial tail", like_for_like=False,
                   unlike="filters loaded past their capacity (k not the optimum), a test of the tail the bound"
                          " rounds up"),
           Measure("space", "a 4-bit counter overflows with probability at most")),
          "At 10^6 keys the bound allows ~1e-8 overflowing counters: a run can show none overflow, not how"
          " tight the bound is; the overloaded filters show the binomial tail itself.",
          kind=AT_MOST, conditions=Conditions(filters="k = (m/n) ln 2, 4-bit counters")),
)

# Xor+ (issue 23), appended apart from the table above. The survey quotes the XOR paper's
# compressed variant beside xor8's 9.84: "compressible to 9.23 by keeping a bitmap of occupied
# slots", a figure, judged as one.
CLAIMS += (
    Claim(SURVEY, XOR_PAPER, "8-bit fingerprints: compressible to 9.23 bits/key by keeping a bitmap of occupied"
          " slots (Xor+)", "9.23",
          (Measure("static", "xor_plus8 bits/key"),), quoted_in=SURVEY,
          note="How many slots the bitmap saves depends on the peel's order (filters/xor_plus.h): ours, as"
               " FastFilter's, peels the compressed block last."),
)

@dataclass
class Judgement:
    """A claim's verdict, from its deciding checks, and the checks set aside with their labels."""

    claim: Claim
    verdict: str
    ours: str  # the deciding evidence, or why nothing decides
    tolerance: str
    deciding: list[tuple[Check, str]]  # (check, its verdict as the claim's kind)
    set_aside: list[tuple[Check, str]]  # (check, why it does not decide)

    @property
    def counted_as(self) -> str:
        """A reproduced sizing rule counts apart; one that fails is a finding and counts as such."""
        if self.claim.by_construction and self.verdict == stats.REPRODUCED:
            return BY_CONSTRUCTION
        return self.verdict


def verdict_as(claim: Claim, check: Check) -> str:
    """The check's verdict read as the claim's kind: a section's equality reading of a bound or a
    limit is judged again from the numbers it kept, with its tolerance; otherwise the section's."""
    reading = READINGS.get(claim.kind)
    if reading is None or check.judged_as != EQUAL or check.measured is None or check.expected is None:
        return check.verdict
    return stats.verdict(check.measured, check.expected, check.rel_tol, check.abs_tol, claim=reading)


def set_aside_label(claim: Claim, measure: Measure, check: Check) -> str:
    """Why a check does not decide the claim; "" when it does."""
    if not measure.like_for_like:
        return f"our finding, not like for like: {measure.unlike}"
    return claim.conditions.unmet_by(check)


def judge(claim: Claim, checks: list[Check]) -> Judgement:
    """The worst verdict of the like-for-like checks under the source's conditions, with that
    check's evidence and tolerance; "not measured" with the reason when none decides."""
    deciding, set_aside = [], []
    for check in checks:
        measure = next((m for m in claim.measured_by if m.matches(check)), None)
        if measure is None:
            continue
        label = set_aside_label(claim, measure, check)
        if label:
            set_aside.append((check, label))
        else:
            deciding.append((check, verdict_as(claim, check)))
    if not deciding:
        sections = ", ".join(dict.fromkeys(m.section for m in claim.measured_by))
        reason = claim.missing or (f"no like-for-like check ({set_aside[0][1]})" if set_aside
                                   else f"no result: the {sections} section had no data to judge it")
        return Judgement(claim, stats.NOT_MEASURED, reason, "–", deciding, set_aside)
    worst, verdict = min(deciding, key=lambda pair: SEVERITY.index(pair[1]))
    ours = worst.evidence
    stale = [check.stale for check, _ in deciding if check.stale]
    if stale:
        ours += f" ⚠ {stale[0]}" + (f" (and {len(stale) - 1} more check{'s' if len(stale) > 2 else ''})"
                                    if len(stale) > 1 else "")
    if verdict != worst.verdict:
        ours += f" (judged as {claim.kind}; the section's equality reading: {worst.verdict})"
    if len(deciding) > 1:
        counts = ", ".join(f"{n} {v}" for v in SEVERITY if (n := sum(d == v for _, d in deciding)))
        ours += f" (the worst of {len(deciding)} checks: {counts})"
    return Judgement(claim, verdict, ours, worst.tolerance, deciding, set_aside)


def rows(results: ResultSet) -> list[Judgement]:
    """Every claim judged from the checks the sections recorded."""
    return [judge(claim, results.checks) for claim in CLAIMS]


def counts(judged: list[Judgement]) -> dict[str, int]:
    """How many claims count as each of COUNTED."""
    return {name: sum(j.counted_as == name for j in judged) for name in COUNTED}


def counts_text(judged: list[Judgement]) -> str:
    return ", ".join(f"{name} {n}" for name, n in counts(judged).items())


def cell(text: str) -> str:
    """Text safe inside a Markdown table cell (|Q| would split it)."""
    return text.replace("|", "\\|")


def sections_of(claim: Claim) -> str:
    names = ", ".join(dict.fromkeys(m.section for m in claim.measured_by))
    return f" [{names}]" if names else ""


def kind_text(claim: Claim) -> str:
    return f"{claim.kind}{'; by construction' if claim.by_construction else ''}"


def set_aside_text(judgement: Judgement) -> str:
    """The checks set aside, each with its label and its own verdict."""
    return "; ".join(f"{check.evidence} → {check.verdict} ({label})" for check, label in judgement.set_aside)


def section(results: ResultSet) -> list[str]:
    """The claims tables, one per source document, for the report."""
    judged = rows(results)
    lines = ["### The source documents' claims", "",
             "Every measurable claim of the three source documents and of the papers they cite, with who made it"
             " and where it was quoted, its kind (a bound is judged as a bound, a limit from the side a finite"
             " measurement may fall on) and the conditions its source states. A claim's verdict is the worst of"
             " the like-for-like checks under those conditions (the section named in brackets prints them all);"
             " checks of other configurations, of our own variants or outside the source's conditions are set"
             " aside, shown with their label, and never decide. Claims that follow from the sizing rule alone"
             " are counted apart as \"by construction\".", "",
             f"Claims: {counts_text(judged)}."]
    for document in dict.fromkeys(c.document for c in CLAIMS):
        body = [[cell(j.claim.source), cell(j.claim.words), cell(j.claim.number), cell(kind_text(j.claim)),
                 cell(j.claim.conditions.text()), cell(j.ours) + sections_of(j.claim), cell(j.tolerance),
                 verdict_cell(j.verdict), cell(set_aside_text(j) or "–"), cell(j.claim.note or "–")]
                for j in judged if j.claim.document == document]
        lines += ["", f"**{TITLES[document]}** ({document})", "",
                  table(["made by (quoted in)", "the source says", "its number", "kind", "conditions", "ours [section]",
                         "tolerance", "verdict", "set aside (our findings, other conditions)",
                         "where the source is wrong or we differ"], body)]
    return lines


def listing(results: ResultSet) -> list[str]:
    """Every claim with its kind, conditions, source, deciding checks and verdict, then the counts:
    what `report.py --claims` prints."""
    judged = rows(results)
    lines = []
    for j in judged:
        claim = j.claim
        lines += [f"- \"{claim.words}\" ({claim.number})",
                  f"  kind: {kind_text(claim)}",
                  f"  conditions: {claim.conditions.text()}",
                  f"  source: {claim.source}"]
        if claim.by_construction:
            lines.append(f"  by construction: {claim.by_construction}")
        lines += [f"  like-for-like: {check.section}: {check.claim}: {check.evidence} → {verdict}"
                  + (f" ⚠ {check.stale}" if check.stale else "") for check, verdict in j.deciding]
        lines += [f"  set aside: {check.section}: {check.claim}: {check.evidence} → {check.verdict} ({label})"
                  for check, label in j.set_aside]
        lines.append(f"  verdict: **{j.verdict}** — {j.ours}")
    return lines + ["", f"Claims: {counts_text(judged)}."]



# Homogeneous Ribbon (issue 23), appended apart from the table above.
CLAIMS += (
    Claim(SURVEY, reference.RIBBON_PAPER, "homogeneous Ribbon's FPR is a little above 2^-r",
          "2^-r + (1 - 2^-r) p",
          (Measure("sweep", "homogeneous Ribbon's FPR is a little above 2^-r"),),
          "The paper's closed form for the excess p against the overhead was not recoverable here: the predicted"
          " excess is the span share the build sampled (filters/homog_ribbon.h), ~0 at FastFilter's sizing"
          " m = n (1 + (4 + r/4)/64), so the measured FPR is judged against 2^-r itself; the sweep section also"
          " judges the prediction 2^-r + (1 - 2^-r) p against the measured interval.",
          kind=AT_LEAST, conditions=Conditions(n="10^6", filters="homog_ribbon64, w = 64, eps = (4 + r/4)/64")),
)


# Bumped Ribbon, BuRR (issue 23), appended apart from the table above.
CLAIMS += (
    Claim(SURVEY, reference.BURR_PAPER, "BuRR's space overhead is around 0.1-0.5%",
          "bits/key ÷ r − 1 in [0.1%, 0.5%]",
          (Measure("sweep", "BuRR's space overhead is around 0.1-0.5%"),),
          "Judged per bumped_ribbon cell of the sweep (w = 64, r from the suite's ε): the measured overhead"
          " bits_per_key / fingerprint_bits − 1, thresholds and the fallback included, inside the paper's range."
          " Our bucket size, thresholds and load were chosen by measurement (filters/bumped_ribbon.h).",
          kind=EQUAL, conditions=Conditions(n="10^6", filters="bumped_ribbon, w = 64, r = 8 or the suite's r")),
)


# The semi-sorted cuckoo filter (issue 22, item 5), appended apart from the table above.
CLAIMS += (
    Claim(SURVEY, reference.CUCKOO_PAPER, "semi-sorting the buckets saves one bit per item (section 5.2:"
          " b = 4, the four 4-bit prefixes of a sorted bucket are one of 3876 multisets, a 12-bit index"
          " where they took 16 bits)", "1 bit per item",
          (Measure("static", reference.SEMISORT_BIT_SAVED.label),),
          "Judged in the static section's table, where cuckoo12 and cuckoo_semisort13 fill the same 2^18"
          " buckets with the same 10^6 keys (the same bits/key): the bits saved per slot are log2 of"
          " cuckoo12's FPR over cuckoo_semisort13's, which 13-bit fingerprints in 12 bits make 1.",
          kind=EQUAL, conditions=Conditions(n="10^6", filters="cuckoo12 against cuckoo_semisort13, b = 4, same table")),
)


# The dynamic filters' papers (issue 22, item 5), appended apart from the table above: each judged
# in the fill_step section's comparisons (sections/dynamic_papers.py), where every ratio is of two
# of our filters in one run. The abstracts state no filter size; where a paper does, another size
# is set aside.
IN_CACHE = ("measured at n = 10^6 (about 1.5 MB of filter, inside this machine's caches); the abstract"
            " names no size, so the comparison decides, but out of cache, where one cache line per lookup"
            " is what these designs save, the ratios may differ")


def in_cache_comparison(made_by: str, paper: str, words: str, number: str, filters: str) -> Claim:
    """A paper's speed comparison judged by the fill_step check of the same words (dynamic_papers
    names its checks "<paper>: <words>"), measured at n = 10^6 only."""
    return Claim(SURVEY, made_by, words, number, (Measure("fill_step", f"{paper}: {words}"),), IN_CACHE,
                 kind=COMPARISON, conditions=Conditions(filters=filters))


CLAIMS += (
    in_cache_comparison(reference.VQF_PAPER, "VQF paper", "2× faster for inserts compared to the Morton filter",
                        "2×", "vqf8 against morton"),
    in_cache_comparison(reference.VQF_PAPER, "VQF paper", "similar lookup performance as the cuckoo filter", "–",
                        "vqf8 against cuckoo12"),
    in_cache_comparison(reference.VQF_PAPER, "VQF paper", "similar deletion performance as the cuckoo filter", "–",
                        "vqf8 against cuckoo12"),
    Claim(SURVEY, reference.VQF_PAPER, "minimal performance decline at high load factors", "–",
          (Measure("fill_step", "VQF paper: minimal performance decline"),),
          "Judged on the portable build's fill-step run, where a block's scan grows with its fill and the"
          " paper's SIMD compare does not: it can only overstate the decline the paper's design shows.",
          kind=AT_MOST, conditions=Conditions(load="high load factors (ours: full, 0.93, against half)",
                                              filters="vqf8")),
    Claim(SURVEY, reference.VQF_PAPER, "insertion throughput scales 3× with four threads compared to a single"
          " thread", "3×", missing="four threads: the concurrent_inserts kind times the VQF's"
          " per-block-lock inserts on T threads, but a host with fewer than four cores cannot run the"
          " paper's condition, and two threads on two cores is not it",
          kind=COMPARISON, conditions=Conditions(workload="4 threads", filters="the thread-safe VQF")),
    *(in_cache_comparison(reference.MORTON_PAPER, "Morton filter paper", f"{what} throughput {number.replace('×–', '× to ')}"
                          " the cuckoo filter's", number, "morton against cuckoo12")
      for what, number in (("lookup", "1.3×–2.5×"), ("insertion", "0.9×–15.5×"), ("deletion", "1.3×–1.6×"))),
    Claim(SURVEY, reference.MORTON_PAPER, "comparable to slightly less space than cuckoo filters for the same ε",
          "–", (Measure("fill_step", "Morton filter paper: comparable to slightly less space"),),
          "Our morton (FastFilter's configuration) and cuckoo12 differ in FPR (0.3% and 0.2%): morton's"
          " bits/key are moved to cuckoo12's FPR at one bit per halving, what a fingerprint costs.",
          kind=COMPARISON, conditions=Conditions(filters="morton against cuckoo12, the same ε")),
    Claim(SURVEY, reference.PREFIX_PAPER,
          "overall build times faster than those of the vector quotient filter and cuckoo filter",
          "1.39×–1.46× (VQF) and 3.2×–3.5× (cuckoo)",
          (Measure("fill_step", "prefix filter paper: build times faster", like_for_like=False,
                   unlike="n = 10^6, inside the caches, against the paper's 2^25, outside them"),),
          kind=COMPARISON, conditions=Conditions(n="2^25 in the paper", filters="prefix filter, VQF, cuckoo filter")),
    Claim(SURVEY, reference.PREFIX_PAPER,
          "query throughput is high and is comparable to that of the cuckoo filter", "–",
          (Measure("fill_step", "prefix filter paper: query throughput comparable"),), IN_CACHE, kind=COMPARISON,
          conditions=Conditions(filters="prefix filter, cuckoo filter")),
    Claim(SURVEY, reference.PREFIX_PAPER,
          "its space (in bits) is similar to state-of-the-art dynamic filters", "–",
          (Measure("fill_step", "prefix filter paper: space similar"),), kind=COMPARISON,
          conditions=Conditions(n="10^6", filters="prefix filter, cuckoo filter, VQF")),
    Claim(SURVEY, reference.PREFIX_PAPER,
          "the expected number of keys forwarded to the spare is at most n / sqrt(2 pi k)",
          "≈ 8% of n at k = 25",
          (Measure("fill_step", "prefix filter paper: keys forwarded to the spare", like_for_like=False,
                   unlike="bins at load 0.95 (the paper's and FastFilter's filter), the bound is stated at load 1:"
                          " lighter bins forward fewer keys, so holding here cannot show it there"),),
          kind=AT_MOST, conditions=Conditions(load="bins at load 1 (m = n/k)", filters="prefix_*")),
)
