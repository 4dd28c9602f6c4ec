"""One function per chart name a suite's `charts = [...]` may list. Each takes an experiment's
frame (every record of its file), the PNG path to write and the experiment's title, draws the
measured points with the theory they are judged against, and returns the path (None when the
frame has nothing to draw).
"""

from __future__ import annotations

from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

import load  # noqa: E402
import reference  # noqa: E402
import theory  # noqa: E402


def _cells(frame: pd.DataFrame) -> pd.DataFrame:
    return frame[frame["record"] == "cell"] if "record" in frame else frame


def _built(frame: pd.DataFrame) -> pd.DataFrame:
    """Cells that built a filter and measured a non-zero FPR (log axes)."""
    frame = _cells(frame)
    if "build_failed" in frame:
        frame = frame[frame["build_failed"] != True]  # noqa: E712 (NaN-safe)
    if "fpr" not in frame:
        return frame.iloc[0:0]
    return frame[pd.to_numeric(frame["fpr"], errors="coerce") > 0]


def _save(fig, out: Path, title: str) -> Path:
    fig.suptitle(title, fontsize=11)
    fig.tight_layout()
    fig.savefig(out, dpi=100)
    plt.close(fig)
    return out


MARKERS = "osD^vP*Xh<>p"


def _styles(names) -> dict:
    """A colour and marker per filter, distinct for up to 20 filters (tab10 cycles after 10)."""
    colours = plt.get_cmap("tab20").colors
    return {name: {"color": colours[i % 20], "marker": MARKERS[i % len(MARKERS)]}
            for i, name in enumerate(sorted(names))}


def _theory_curves(ax, frame: pd.DataFrame, eps: np.ndarray) -> None:
    """The lower bound and the curve of every filter in the frame (each drawn once)."""
    ax.plot(eps, theory.lower_bound(eps), "k--", lw=1.2, label="lower bound log2(1/ε)")
    drawn = set()
    for name, family in frame[["filter", "family"]].drop_duplicates().itertuples(index=False):
        curve = theory.curve_for(name, family)
        if curve and curve[0] not in drawn:
            drawn.add(curve[0])
            ax.plot(eps, curve[1](eps), lw=1, alpha=0.6, label=f"theory: {curve[0]}")


def space(frame: pd.DataFrame, out: Path, title: str) -> Path | None:
    """Bits/key against measured FPR, every filter, beside each family's curve."""
    frame = _built(frame)
    if frame.empty:
        return None
    fig, ax = plt.subplots(figsize=(11, 5.5))
    lo, hi = max(frame["fpr"].min() / 2, 1e-7), min(frame["fpr"].max() * 2, 0.5)
    eps = np.logspace(np.log10(lo), np.log10(hi), 60)
    _theory_curves(ax, frame, eps)
    styles = _styles(frame["filter"].unique())
    for name, rows in frame.groupby("filter"):
        ax.scatter(rows["fpr"], rows["bits_per_key"], s=32, label=name, zorder=3, **styles[name])
    ax.set_xscale("log")
    ax.set_xlabel("measured false-positive rate")
    ax.set_ylabel("bits per key")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1))
    return _save(fig, out, title)


def space_vs_fpr(frame: pd.DataFrame, out: Path, title: str) -> Path | None:
    """Left: bits/key against the FPR each cell reached, with theory curves. Right: measured FPR
    (95% interval) against the filter's own theory FPR."""
    frame = _built(frame)
    if frame.empty:
        return None
    fig, (left, right) = plt.subplots(1, 2, figsize=(14, 6))
    lo, hi = max(frame["fpr"].min() / 2, 1e-7), min(frame["fpr"].max() * 2, 0.5)
    eps = np.logspace(np.log10(lo), np.log10(hi), 60)
    _theory_curves(left, frame, eps)
    styles = _styles(frame["filter"].unique())
    for name, rows in frame.groupby("filter"):
        rows = rows.sort_values("fpr")
        left.plot(rows["fpr"], rows["bits_per_key"], ls="none", ms=5, label=name, zorder=3, **styles[name])
        err = np.vstack([rows["fpr"] - rows["fpr_ci_low"], rows["fpr_ci_high"] - rows["fpr"]])
        right.errorbar(rows["fpr_theory"], rows["fpr"], yerr=err, fmt="none", capsize=2, ecolor=styles[name]["color"])
        right.plot(rows["fpr_theory"], rows["fpr"], ls="none", ms=4, label=name, **styles[name])
    left.set_xscale("log")
    left.set_xlabel("measured false-positive rate")
    left.set_ylabel("bits per key")
    left.legend(fontsize=7, ncol=2)
    both = pd.concat([frame["fpr_theory"], frame["fpr"]])
    line = [both.min() / 1.5, both.max() * 1.5]
    right.plot(line, line, "k--", lw=1, label="measured = theory")
    right.set_xscale("log")
    right.set_yscale("log")
    right.set_xlabel("theory FPR (the filter's formula at its geometry)")
    right.set_ylabel("measured FPR, 95% interval")
    right.legend(fontsize=7)
    for ax in (left, right):
        ax.grid(True, which="both", alpha=0.3)
    return _save(fig, out, title)


def kicks(frame: pd.DataFrame, out: Path, title: str) -> Path | None:
    """Cuckoo evictions per insert against load, and FPR against load beside its formula."""
    cells = _cells(frame)
    if "kicks_per_insert" not in cells or "family" not in cells:
        return None
    cuckoo = cells[cells["family"] == "cuckoo"].dropna(subset=["kicks_per_insert", "load_factor"])
    if cuckoo.empty:
        return None
    fig, (left, right) = plt.subplots(1, 2, figsize=(12, 4.5))
    for name, rows in cuckoo.groupby("filter"):
        rows = rows.sort_values("load_factor")
        line, = left.plot(rows["load_factor"], rows["kicks_per_insert"], "o-", ms=4, label=name)
        b = int(rows["slots_per_bucket"].iloc[0])
        threshold = reference.CUCKOO_THRESHOLDS.get(b)
        if threshold and cuckoo["slots_per_bucket"].nunique() > 1:
            left.axvline(threshold.load, color=line.get_color(), ls="-.", lw=1,
                         label=f"threshold b = {b}: {'>' if threshold.claim == 'at_least' else '≈'} {threshold.load:g}")
        err = np.vstack([rows["fpr"] - rows["fpr_ci_low"], rows["fpr_ci_high"] - rows["fpr"]])
        right.errorbar(rows["load_factor"], rows["fpr"], yerr=err, fmt="o", ms=4, capsize=2,
                       label=f"{name} measured")
        bits, slots = int(rows["fingerprint_bits"].iloc[0]), int(rows["slots_per_bucket"].iloc[0])
        grid = np.linspace(rows["load_factor"].min(), rows["load_factor"].max(), 50)
        right.plot(grid, theory.cuckoo_fpr(bits, grid, slots), "k:",
                   label=f"theory 1−(1−1/(2^f−1))^(2bα), f={bits}, b={slots}")
    left.axvline(reference.CUCKOO_LOAD.value, color="grey", ls="--", lw=1,
                 label=f"cuckoo paper: {reference.CUCKOO_LOAD.label}")
    if "first_failure_load" in cuckoo and cuckoo["first_failure_load"].notna().any():
        left.axvline(cuckoo["first_failure_load"].min(), color="red", ls=":", lw=1,
                     label="first failed insert (measured)")
    left.set_yscale("symlog", linthresh=0.01)
    left.set_ylim(bottom=0)
    left.set_ylabel("evictions per successful insert")
    right.set_ylabel("false-positive rate")
    for ax in (left, right):
        ax.set_xlabel("load factor reached")
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize=7)
    return _save(fig, out, title)


def quotient_load(frame: pd.DataFrame, out: Path, title: str) -> Path | None:
    """Quotient family against load: insert and lookup cost, the classic QF's displacement
    beside Knuth's linear-probing formula, and FPR beside 1 − e^(−α/2^r)."""
    cells = _cells(frame)
    if "displacement_mean" not in cells or "family" not in cells:
        return None
    q = cells[cells["family"] == "quotient"].dropna(subset=["load_factor"])
    if q["load_factor"].nunique() < 2:
        return None
    fig, axes = plt.subplots(2, 2, figsize=(12, 8.5))
    (insert_ax, lookup_ax), (geometry_ax, fpr_ax) = axes
    grid = np.linspace(q["load_factor"].min(), q["load_factor"].max(), 60)
    for name, rows in q.groupby("filter"):
        rows = rows.sort_values("load_factor")
        insert_ax.plot(rows["load_factor"], rows["insert_ns"], "o-", ms=3, label=name)
        lookup_ax.plot(rows["load_factor"], rows["query_ns_positive"], "o-", ms=3, label=f"{name} present")
        lookup_ax.plot(rows["load_factor"], rows["query_ns_negative"], "s--", ms=3, label=f"{name} absent")
        err = np.vstack([rows["fpr"] - rows["fpr_ci_low"], rows["fpr_ci_high"] - rows["fpr"]])
        fpr_ax.errorbar(rows["load_factor"], rows["fpr"], yerr=err, fmt="o", ms=4, capsize=2,
                        label=f"{name} measured, 95% interval")
        if name == "quotient":
            geometry_ax.plot(rows["load_factor"], rows["displacement_mean"], "o", ms=4,
                             label="mean displacement (measured)")
            geometry_ax.plot(rows["load_factor"], rows["cluster_length_mean"], "s", ms=4,
                             label="mean cluster length (measured)")
    geometry_ax.plot(grid, theory.knuth_displacement(grid), "k:", label="Knuth α/(2(1−α))")
    remainder = int(q["remainder_bits"].iloc[0])
    fpr_ax.plot(grid, theory.quotient_fpr(remainder, grid), "k:", label=f"theory 1−e^(−α/2^r), r={remainder}")
    for ax, label in ((insert_ax, "insert, ns per key"), (lookup_ax, "lookup, ns per key"),
                      (geometry_ax, "classic QF, slots"), (fpr_ax, "false-positive rate")):
        if ax is not fpr_ax:
            ax.set_yscale("log")
        ax.set_xlabel("load factor")
        ax.set_ylabel(label)
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=7)
    return _save(fig, out, title)


def adapt_fpr_vs_as(frame: pd.DataFrame, out: Path, title: str) -> Path | None:
    """FPR against |A|/|S|, one panel per (bits per slot, queries per flow), with each filter's
    static theory as a dotted line of the same colour."""
    cells = _cells(frame)
    if cells.empty or "as_ratio" not in cells:
        return None
    panels = sorted({(int(b), float(q)) for b, q in zip(cells["bits_per_slot"], cells["queries_per_flow"])})
    fig, axes = plt.subplots(1, len(panels), figsize=(4.2 * len(panels), 4.4), squeeze=False)
    for ax, (bits, qpf) in zip(axes[0], panels):
        panel = cells[(cells["bits_per_slot"] == bits) & (cells["queries_per_flow"] == qpf)]
        for name, rows in panel.groupby("filter", sort=False):
            rows = rows.sort_values("as_ratio")
            style = "--" if name.startswith("cuckoo_") else "-"
            # The 95% interval over flows where the file has one (min–max over trials in version 1
            # files): error bars that say how far the point could be from the truth.
            below, above = ("fpr_ci_low", "fpr_ci_high") if "fpr_ci_low" in rows else ("fpr_min", "fpr_max")
            low = (rows["fpr"] - rows.get(below, rows["fpr"])).clip(lower=0)
            high = (rows.get(above, rows["fpr"]) - rows["fpr"]).clip(lower=0)
            line = ax.errorbar(rows["as_ratio"], rows["fpr"], yerr=[low, high], fmt="o" + style,
                               ms=3, capsize=2, label=name)
            ax.axhline(rows["fpr_theory_static"].iloc[0], color=line[0].get_color(), ls=":", lw=0.8)
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_title(f"{bits} bits/slot, {qpf:g} queries/flow", fontsize=9)
        ax.set_xlabel("|A| / |S|")
        ax.grid(True, which="both", alpha=0.3)
    axes[0][0].set_ylabel("FPR over trials, 95% interval over flows; dotted: static theory")
    axes[0][-1].legend(fontsize=7)
    return _save(fig, out, title)


def adapt_windows(frame: pd.DataFrame, out: Path, title: str) -> Path | None:
    """FPR in consecutive windows of a trace replay, one line per filter (each window joined to
    its cell by cell_id, or by filter and bits per slot in version 1 files), with the static
    theory dotted."""
    if "record" not in frame:
        return None
    windows = frame[frame["record"] == "window"].copy()
    cells = frame[frame["record"] == "cell"]
    if windows.empty or cells.empty:
        return None
    windows = _join_cells(windows, cells, ["filter", "bits_per_slot", "fpr_theory_static"])
    panels = sorted(windows["bits_per_slot"].dropna().unique())
    fig, axes = plt.subplots(1, len(panels), figsize=(5.5 * len(panels), 4.4), squeeze=False)
    for ax, bits in zip(axes[0], panels):
        for name, rows in windows[windows["bits_per_slot"] == bits].groupby("filter", sort=False):
            rows = rows.sort_values("window")
            style = "--" if name.startswith("cuckoo_") else "-"
            line = ax.plot(rows["window"], rows["fpr"], "o" + style, ms=3, label=name)
            ax.axhline(rows["fpr_theory_static"].iloc[0], color=line[0].get_color(), ls=":", lw=0.8)
        ax.set_title(f"{int(bits)} bits/slot", fontsize=9)
        ax.set_xlabel("window of the replay (in order)")
        ax.set_yscale("symlog", linthresh=1e-4)
        ax.set_ylim(bottom=0)
        ax.grid(True, alpha=0.3)
    axes[0][0].set_ylabel("FPR in the window; dotted: static theory")
    axes[0][-1].legend(fontsize=7)
    return _save(fig, out, title)


def _join_cells(rows: pd.DataFrame, cells: pd.DataFrame, columns: list[str]) -> pd.DataFrame:
    """Fill `columns` of trial or window rows from their cell: by cell_id where the file has
    one (version 2, in any line order), else the rows carry them already (version 1)."""
    if "cell_id" not in rows or rows["cell_id"].isna().all():
        return rows
    lookup = cells.drop_duplicates("cell_id").set_index("cell_id")
    for column in columns:
        if column in lookup:
            from_cell = rows["cell_id"].map(lookup[column])
            rows[column] = rows[column].fillna(from_cell) if column in rows else from_cell
    return rows


def speed(frame: pd.DataFrame, out: Path, title: str) -> Path | None:
    """ns per key (median, min–max over repetitions) of each filter's insert or build and
    lookups, with FastFilter's median where it has the same filter (black marks)."""
    if "ns_per_key" not in frame or "aggregate" not in frame:
        return None
    runs = frame[(frame["aggregate"] == "iteration") & (frame["suite"] == "filters")]
    runs = load.at_one_n(runs.dropna(subset=["ns_per_key"]))
    if runs.empty:
        return None
    groups = [("insert or build", ("insert", "build")), ("lookup, present", ("query_present",)),
              ("lookup, absent", ("query_absent",))]
    filters = sorted(runs["filter"].unique())
    fig, axes = plt.subplots(1, 3, figsize=(15, 0.32 * len(filters) + 2), sharey=True)
    for ax, (label, operations) in zip(axes, groups):
        part = runs[runs["operation"].isin(operations)]
        spread = part.groupby("filter")["ns_per_key"].agg(["median", "min", "max"]).reindex(filters)
        y = np.arange(len(filters))
        ax.barh(y, spread["median"], xerr=[spread["median"] - spread["min"], spread["max"] - spread["median"]],
                color="tab:blue", alpha=0.7, capsize=2, label="measured, median [min–max]")
        for i, name in enumerate(filters):
            for operation in operations:
                ref = reference.FASTFILTER_SPEED.get((name, operation))
                if ref:
                    ax.plot(ref.median_ns, i, "k|", ms=12, mew=2)
        ax.plot([], [], "k|", ms=12, mew=2, label="FastFilter median (-march=native)")
        ax.set_yticks(y, filters, fontsize=8)
        ax.set_ylim(len(filters) - 0.5, -0.5)  # first filter at the top
        ax.set_xscale("log")
        ax.set_xlabel("ns per key")
        ax.set_title(label, fontsize=9)
        ax.grid(True, axis="x", which="both", alpha=0.3)
    axes[-1].legend(fontsize=7)
    return _save(fig, out, title)


SPEED_PANELS = (("insert or build", ("insert", "build")), ("query, present", ("query_present",)),
                ("query, absent", ("query_absent",)))


def sized_runs(frame: pd.DataFrame) -> pd.DataFrame:
    """The filters' benchmark repetitions that have an n and a time per key."""
    if not {"ns_per_key", "aggregate", "suite", "n"} <= set(frame.columns):
        return pd.DataFrame(columns=["filter", "operation", "n", "ns_per_key"])
    runs = frame[(frame["aggregate"] == "iteration") & (frame["suite"] == "filters")]
    return runs.dropna(subset=["ns_per_key", "n"])


def cache_lines(caches, bits_per_key: float, low: float, high: float) -> list[tuple[str, int, float]]:
    """(name, bytes, n) of each cache whose n - the n at which a filter of bits_per_key bits per
    key fills it - falls within a factor 2 of [low, high] (the drawn range of n)."""
    lines = []
    for name, size in caches:
        n = 8.0 * size / bits_per_key
        if low / 2 <= n <= high * 2:
            lines.append((name, size, n))
    return lines


def typical_bits_per_key(frame: pd.DataFrame) -> float:
    """The median size of the filters the query benchmarks probed (their bits_per_key counter);
    8 where the file has none."""
    if "bits_per_key" not in frame:
        return 8.0
    bits = pd.to_numeric(frame["bits_per_key"], errors="coerce").dropna()
    return float(bits.median()) if not bits.empty else 8.0


def speed_vs_n_figure(frame: pd.DataFrame, title: str, caches=()):
    """The figure of speed_vs_n, not yet saved (tests read its lines)."""
    runs = sized_runs(frame)
    if runs["n"].nunique() < 2:
        return None
    bits = typical_bits_per_key(runs)
    low, high = runs["n"].min(), runs["n"].max()
    lines = cache_lines(caches, bits, low, high)
    styles = _styles(runs["filter"].unique())
    fig, axes = plt.subplots(1, len(SPEED_PANELS), figsize=(16, 5), sharey=True)
    for ax, (label, operations) in zip(axes, SPEED_PANELS):
        part = runs[runs["operation"].isin(operations)]
        for name, rows in part.groupby("filter"):
            spread = rows.groupby("n")["ns_per_key"].agg(["median", "min", "max"]).sort_index()
            ax.plot(spread.index, spread["median"], "-", ms=4, label=name, **styles[name])
            ax.fill_between(spread.index, spread["min"], spread["max"], color=styles[name]["color"], alpha=0.15)
        for i, (cache, size, n) in enumerate(lines):
            ax.axvline(n, color="grey", ls=":", lw=1)
            ax.text(n, 0.98 - 0.06 * (i % 2), f" {cache}", transform=ax.get_xaxis_transform(),
                    fontsize=7, color="grey", va="top")
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.set_xlabel("n (keys)")
        ax.set_title(label, fontsize=9)
        ax.grid(True, which="both", alpha=0.3)
    axes[0].set_ylabel("ns per key (median; band: min–max over repetitions)")
    axes[-1].legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1))
    fig.text(0.01, 0.005, f"dotted: the n at which a filter of {bits:.1f} bits per key (the median of these"
             " filters) fills each cache of the run's context", fontsize=7)
    fig.suptitle(title, fontsize=11)
    fig.tight_layout()
    return fig


def speed_vs_n(frame: pd.DataFrame, out: Path, title: str, caches=()) -> Path | None:
    """ns per key against n (log2 axis), a panel per operation (insert or build, query present,
    query absent), a line per filter, and the caches (load.cache_sizes of the file's context) as
    dotted lines where a filter of the median size per key fills them."""
    fig = speed_vs_n_figure(frame, title, caches)
    if fig is None:
        return None
    fig.savefig(out, dpi=100)
    plt.close(fig)
    return out


def build_failures(frame: pd.DataFrame, out: Path, title: str) -> Path | None:
    """Left: the share of key sets whose first build failed against n (log axis), with its 95%
    interval as a band, a line per filter. Right: the mean attempts a build took."""
    cells = _cells(frame)
    if cells.empty or "first_build_failure_share" not in cells:
        return None
    fig, (share_ax, attempts_ax) = plt.subplots(1, 2, figsize=(13, 4.8))
    styles = _styles(cells["filter"].unique())
    for name, rows in cells.sort_values("keys").groupby("filter", sort=True):
        style = styles[name]
        control = "paper" in name
        share_ax.plot(rows["keys"], rows["first_build_failure_share"] * 100, color=style["color"], lw=1,
                      ls="--" if control else "-", label=name)
        share_ax.fill_between(rows["keys"], rows["first_build_failure_ci_low"] * 100,
                              rows["first_build_failure_ci_high"] * 100, color=style["color"], alpha=0.12, lw=0)
        attempts_ax.plot(rows["keys"], rows["build_attempts_mean"], color=style["color"], lw=1,
                         ls="--" if control else "-", label=name)
    share_ax.set(xscale="log", xlabel="n (keys)", ylabel="first builds that failed (%), 95% band",
                 ylim=(0, 100))
    attempts_ax.axhline(2.0, color="k", ls=":", lw=1, label="about two attempts")
    attempts_ax.set(xscale="log", yscale="log", xlabel="n (keys)", ylabel="attempts per build, mean")
    attempts_ax.legend(fontsize=7, ncol=2)
    return _save(fig, out, title)


# The fill_step kind's timed operations, one panel each (re-insert, which only restores the
# step's load, is in the section's table).
FILL_STEP_OPERATIONS = (("step_insert_ns", "insert"), ("step_member_ns", "member lookup"),
                        ("step_absent_ns", "absent lookup"), ("step_erase_ns", "erase"))


def fill_step(steps: pd.DataFrame, out: Path, title: str) -> Path | None:
    """ns per operation against the fill (% of the capacity), a panel per operation, a line per
    filter (each filter's step lines of one cell), the median of the timed fills with their
    fastest and slowest as a band: the VQF and prefix filter papers' throughput-against-load
    figures, in the harness's unit."""
    if "record" in steps:
        steps = steps[steps["record"] == "step"]
    if steps.empty or "step_insert_ns" not in steps:
        return None
    fig, axes = plt.subplots(2, 2, figsize=(13, 9), sharex=True)
    styles = _styles(steps["filter"].unique())
    for ax, (field, label) in zip(axes.flat, FILL_STEP_OPERATIONS):
        drawn = False
        for name, rows in steps.sort_values("fill").groupby("filter", sort=True):
            median = pd.to_numeric(rows.get(field), errors="coerce") if field in rows else None
            if median is None or median.isna().all():
                continue
            style = styles[name]
            fill = rows["fill"] * 100
            ax.plot(fill, median, color=style["color"], marker=style["marker"], ms=3, lw=1, label=name)
            if f"{field}_min" in rows and f"{field}_max" in rows:
                ax.fill_between(fill, pd.to_numeric(rows[f"{field}_min"], errors="coerce"),
                                pd.to_numeric(rows[f"{field}_max"], errors="coerce"),
                                color=style["color"], alpha=0.12, lw=0)
            drawn = True
        ax.set(title=label, yscale="log" if drawn else "linear", ylabel="ns per operation (median of the timed fills)")
        if not drawn:
            ax.text(0.5, 0.5, "no filter here erases" if field == "step_erase_ns" else "not measured",
                    ha="center", va="center", transform=ax.transAxes)
    for ax in axes[1]:
        ax.set_xlabel("fill: keys offered / capacity (%)")
    handles, labels = axes[0][0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="lower center", ncol=min(6, max(1, len(labels))), fontsize=7)
    fig.suptitle(title, fontsize=11)
    fig.tight_layout(rect=(0, 0.04 + 0.018 * ((len(labels) + 5) // 6), 1, 1))
    fig.savefig(out, dpi=100)
    plt.close(fig)
    # Some twenty lines with their bands make an RGBA PNG of 630 KB (three times the next largest
    # chart); the chart has far fewer than 256 distinct colours, so a palette keeps it whole at 180 KB.
    from PIL import Image

    with Image.open(out) as image:
        palette = image.convert("RGB").quantize(colors=256)
    palette.save(out, optimize=True)
    return out


CHARTS = {
    "build_failures": build_failures,
    "space": space,
    "kicks": kicks,
    "space_vs_fpr": space_vs_fpr,
    "quotient_load": quotient_load,
    "adapt_fpr_vs_as": adapt_fpr_vs_as,
    "adapt_windows": adapt_windows,
    "speed": speed,
}
