#!/usr/bin/python3
"""Charts for amqbench result files, written as PNG beside each JSON file.

    /usr/bin/python3 plots/make_plots.py results/space.json [more.json ...]

For a driver result file X.json:
  X_space.png  bits/key against measured FPR for every filter, with each family's theory
               curve and the lower bound log2(1/ε)
  X_fpr.png    measured FPR (95% Wilson interval) against the filter's theory FPR
  X_kicks.png  cuckoo kicks per insert against load factor (when the file has cuckoo cells)
Google Benchmark files are skipped (REPORT.md tabulates them).
"""

from __future__ import annotations

import sys
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))
import loader  # noqa: E402
import theory  # noqa: E402


def _built(frame):
    if "build_failed" in frame:
        frame = frame[frame["build_failed"] != True]  # noqa: E712 (NaN-safe)
    return frame[frame["fpr"] > 0]


def space_chart(frame, out: Path) -> Path:
    frame = _built(frame)
    fig, ax = plt.subplots(figsize=(8, 5.5))
    lo = max(frame["fpr"].min() / 2, 1e-7)
    hi = min(frame["fpr"].max() * 2, 0.5)
    eps = np.logspace(np.log10(lo), np.log10(hi), 80)
    ax.plot(eps, theory.lower_bound(eps), "k--", lw=1.2, label="lower bound log2(1/ε)")
    for family in sorted(frame["family"].unique()):
        if family in theory.CURVES:
            label, curve = theory.CURVES[family]
            ax.plot(eps, curve(eps), lw=1, alpha=0.6, label=f"theory: {label}")
    for name, rows in frame.groupby("filter"):
        ax.scatter(rows["fpr"], rows["bits_per_key"], s=28, label=name, zorder=3)
    ax.set_xscale("log")
    ax.set_xlabel("measured false-positive rate")
    ax.set_ylabel("bits per key")
    ax.set_title("Space against accuracy")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=7, ncol=2)
    fig.tight_layout()
    fig.savefig(out, dpi=110)
    plt.close(fig)
    return out


def fpr_chart(frame, out: Path) -> Path:
    frame = _built(frame)
    fig, ax = plt.subplots(figsize=(6.5, 5.5))
    for name, rows in frame.groupby("filter"):
        err = np.vstack([rows["fpr"] - rows["fpr_ci_low"], rows["fpr_ci_high"] - rows["fpr"]])
        ax.errorbar(rows["fpr_theory"], rows["fpr"], yerr=err, fmt="o", ms=4, capsize=2, label=name)
    lo = min(frame["fpr_theory"].min(), frame["fpr"].min()) / 1.5
    hi = max(frame["fpr_theory"].max(), frame["fpr"].max()) * 1.5
    ax.plot([lo, hi], [lo, hi], "k--", lw=1, label="measured = theory")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("theory FPR (the filter's formula at its actual geometry)")
    ax.set_ylabel("measured FPR, 95% interval")
    ax.set_title("Measured against theory")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(out, dpi=110)
    plt.close(fig)
    return out


def kicks_chart(frame, out: Path) -> Path | None:
    if "kicks_per_insert" not in frame or "load_factor" not in frame:
        return None
    cuckoo = frame[frame["family"] == "cuckoo"].dropna(subset=["kicks_per_insert", "load_factor"])
    if cuckoo.empty:
        return None
    fig, ax = plt.subplots(figsize=(6.5, 4.5))
    for name, rows in cuckoo.groupby("filter"):
        rows = rows.sort_values("load_factor")
        ax.plot(rows["load_factor"], rows["kicks_per_insert"], "o-", ms=4, label=name)
    ax.set_xlabel("load factor reached")
    ax.set_ylabel("evictions per successful insert")
    ax.set_yscale("symlog", linthresh=0.01)
    ax.set_title("Cuckoo kicks against load (b = 4)")
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(out, dpi=110)
    plt.close(fig)
    return out


def adapt_grid_chart(frame, out: Path) -> Path | None:
    """FPR against A/S, one panel per (bits per slot, queries per flow), one line per filter."""
    summary = frame[frame["experiment"] == "synthetic_summary"]
    if summary.empty:
        return None
    panels = sorted({(int(b), float(q)) for b, q in zip(summary["bits_per_slot"], summary["queries_per_flow"])})
    fig, axes = plt.subplots(1, len(panels), figsize=(4.2 * len(panels), 4.2), squeeze=False)
    for ax, (bits, qpf) in zip(axes[0], panels):
        cell = summary[(summary["bits_per_slot"] == bits) & (summary["queries_per_flow"] == qpf)]
        for name, rows in cell.groupby("filter"):
            rows = rows.sort_values("as_ratio")
            style = "--" if name.startswith("cuckoo_") else "-"
            ax.errorbar(rows["as_ratio"], rows["fpr"],
                        yerr=[rows["fpr"] - rows["fpr_min"], rows["fpr_max"] - rows["fpr"]],
                        fmt="o" + style, ms=3, capsize=2, label=name)
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_title(f"{bits} bits/slot, {qpf:g} queries/flow", fontsize=9)
        ax.set_xlabel("|A| / |S|")
        ax.grid(True, which="both", alpha=0.3)
    axes[0][0].set_ylabel("FPR (mean over trials, min–max)")
    axes[0][-1].legend(fontsize=7)
    fig.suptitle("Adaptive cuckoo filters against static controls (dashed), same space")
    fig.tight_layout()
    fig.savefig(out, dpi=110)
    plt.close(fig)
    return out


def adapt_windows_chart(frame, out: Path) -> Path | None:
    """FPR in consecutive windows of a replayed trace: adaptation at work over time."""
    windows = frame[frame["experiment"] == "trace_window"]
    if windows.empty:
        return None
    panels = sorted(windows["bits_per_slot"].unique())
    fig, axes = plt.subplots(1, len(panels), figsize=(5.5 * len(panels), 4.2), squeeze=False)
    for ax, bits in zip(axes[0], panels):
        for name, rows in windows[windows["bits_per_slot"] == bits].groupby("filter"):
            rows = rows.sort_values("window")
            style = "--" if name.startswith("cuckoo_") else "-"
            ax.plot(rows["window"], rows["fpr"], "o" + style, ms=3, label=name)
        ax.set_title(f"{int(bits)} bits/slot", fontsize=9)
        ax.set_xlabel("window of the replay (in order)")
        ax.set_yscale("symlog", linthresh=1e-4)
        ax.grid(True, alpha=0.3)
    axes[0][0].set_ylabel("FPR in the window")
    axes[0][-1].legend(fontsize=7)
    trace = windows["trace"].iloc[0] if "trace" in windows else ""
    fig.suptitle(f"FPR over time, replaying {trace}")
    fig.tight_layout()
    fig.savefig(out, dpi=110)
    plt.close(fig)
    return out


def quotient_load_chart(frame, out: Path) -> Path | None:
    """Throughput and cluster geometry against load, with linear-probing theory."""
    if "displacement_mean" not in frame:
        return None
    q = frame[frame["family"] == "quotient"].dropna(subset=["load_factor"])
    if q["load_factor"].nunique() < 3:
        return None
    fig, (left, mid, right) = plt.subplots(1, 3, figsize=(15, 4.5))
    for name, rows in q.groupby("filter"):
        rows = rows.sort_values("load_factor")
        left.plot(rows["load_factor"], rows["insert_ns"], "o-", ms=3, label=f"{name} insert")
        mid.plot(rows["load_factor"], rows["query_ns_positive"], "o-", ms=3, label=f"{name} present")
        mid.plot(rows["load_factor"], rows["query_ns_negative"], "s--", ms=3, label=f"{name} absent")
        if name == "quotient":
            right.plot(rows["load_factor"], rows["displacement_mean"], "o-", ms=3, label="mean displacement")
            right.plot(rows["load_factor"], rows["displacement_mean_knuth"], "k:", label="Knuth α/(2(1−α))")
            right.plot(rows["load_factor"], rows["cluster_length_mean"], "s-", ms=3, label="mean cluster length")
            if "slots_scanned_per_lookup" in rows:
                right.plot(rows["load_factor"], rows["slots_scanned_per_lookup"], "^-", ms=3,
                           label="slots scanned per lookup")
    for ax, title in ((left, "insert, ns per key"), (mid, "lookup, ns per key"),
                      (right, "classic QF geometry, slots")):
        ax.set_yscale("log")
        ax.set_xlabel("load factor")
        ax.set_title(title, fontsize=10)
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=7)
    fig.suptitle("Quotient family against load (one table, filled step by step)")
    fig.tight_layout()
    fig.savefig(out, dpi=110)
    plt.close(fig)
    return out


def charts_for(path: Path) -> list[Path]:
    frame = loader.load(path)
    stem = path.with_suffix("")
    if "experiment" in frame:  # amqbench adapt
        made = [adapt_grid_chart(frame, Path(f"{stem}_fpr_vs_as.png")),
                adapt_windows_chart(frame, Path(f"{stem}_windows.png"))]
        return [m for m in made if m]
    if "fpr" not in frame:
        return []  # a Google Benchmark file, or records without filters
    made = [space_chart(frame, Path(f"{stem}_space.png")), fpr_chart(frame, Path(f"{stem}_fpr.png"))]
    extra = [kicks_chart(frame, Path(f"{stem}_kicks.png")),
             quotient_load_chart(frame, Path(f"{stem}_load.png"))]
    return made + [e for e in extra if e]


def main(argv: list[str]) -> int:
    if not argv:
        print("usage: make_plots.py RESULT.json [...]", file=sys.stderr)
        return 2
    for name in argv:
        try:
            for made in charts_for(Path(name)):
                print(made)
        except loader.ResultFileError as error:
            print(f"make_plots: {error}", file=sys.stderr)
            return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
