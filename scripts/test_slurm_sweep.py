"""scripts/slurm_sweep.sh on a real Slurm: a one-node cluster started on this host in a temporary
directory (munged, slurmctld and slurmd, each with its own key, socket, ports, state and logs
there), suites/ci.toml submitted in 3 shards as a job array plus the merge job that depends on
it, and the merged files compared with one unsharded run by amqbench compare: equal on every
deterministic field, no cell missing or added. Every daemon started is stopped, passed or not.

The sweep leaves out ci.toml's instructions experiment: it counts instructions under callgrind,
about 60 s of the suite's 65 s on the 2-core CI machine, and is one cell per filter like the
others, so the other 12 experiments (237 cells, about 5 s unsharded) exercise the split and the
merge as well. The whole test takes about 20 s here. Skipped, with the reason, where Debian's
slurm-wlm or munge is missing (scripts/debian-packages.txt lists them) or not running as root
(slurmd starts jobs as their user).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import socket
import subprocess
import tempfile
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
BINARY = Path(os.environ.get("AMQBENCH", ROOT / "build" / "amqbench")).resolve()
SHARDS = 3
# Generous: two CPUs shared with the rest of CI; nothing here is timed, only waited for.
DAEMON_START_SECONDS = 120
SWEEP_SECONDS = 900
FINISHED_STATES = {"COMPLETED", "FAILED", "CANCELLED", "TIMEOUT", "NODE_FAIL", "OUT_OF_MEMORY",
                   "BOOT_FAIL", "DEADLINE", "PREEMPTED"}


def missing_requirement() -> str | None:
    programs = ["munged", "mungekey", "slurmctld", "slurmd", "sbatch", "squeue", "scontrol", "scancel", "sinfo"]
    absent = [p for p in programs if not shutil.which(p, path=os.environ.get("PATH", "") + ":/usr/sbin:/sbin")]
    if absent:
        return f"Slurm test needs Debian's slurm-wlm and munge (missing: {', '.join(absent)})"
    if os.geteuid() != 0:
        return "Slurm test needs root: slurmd starts each job as its user"
    if not BINARY.exists():
        return f"{BINARY} is not built"
    return None


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def program(name: str) -> str:
    return shutil.which(name, path=os.environ.get("PATH", "") + ":/usr/sbin:/sbin")


class OneNodeCluster:
    """munged, slurmctld and slurmd in the foreground as children of this process, all in `home`."""

    def __init__(self, home: Path):
        self.home = home
        self.node = socket.gethostname().split(".")[0]
        self.daemons: list[tuple[str, subprocess.Popen]] = []
        self.env = {k: v for k, v in os.environ.items() if not k.startswith(("SLURM", "SBATCH_", "SQUEUE_"))}
        self.env["SLURM_CONF"] = str(home / "slurm.conf")
        self.env["PATH"] = self.env.get("PATH", "") + ":/usr/sbin:/sbin"

    def start(self) -> None:
        munge = self.home / "munge"
        munge.mkdir(mode=0o700)
        for d in ("state", "spool", "log"):
            (self.home / d).mkdir()
        key = munge / "munge.key"
        subprocess.run([program("mungekey"), "--create", "--keyfile", str(key)], check=True, capture_output=True)
        key.chmod(0o600)
        socket_path = munge / "munge.socket"
        self._start("munged", [program("munged"), "--foreground", "--force", f"--key-file={key}",
                               f"--socket={socket_path}", f"--pid-file={munge / 'munged.pid'}",
                               f"--log-file={munge / 'munged.log'}", f"--seed-file={munge / 'munged.seed'}"])
        self._wait_for(lambda: socket_path.exists(), "munged's socket", munge / "munged.log")
        memory_mb = int(re.search(r"MemTotal:\s+(\d+)", Path("/proc/meminfo").read_text()).group(1)) // 1024
        h = self.home
        (h / "slurm.conf").write_text(f"""\
ClusterName=amqbench-test
SlurmctldHost={self.node}(127.0.0.1)
SlurmctldPort={free_port()}
SlurmdPort={free_port()}
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket={socket_path}
CredType=cred/munge
StateSaveLocation={h / 'state'}
SlurmdSpoolDir={h / 'spool'}
SlurmctldPidFile={h / 'slurmctld.pid'}
SlurmdPidFile={h / 'slurmd.pid'}
SlurmctldLogFile={h / 'log' / 'slurmctld.log'}
SlurmdLogFile={h / 'log' / 'slurmd.log'}
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ReturnToService=2
MpiDefault=none
NodeName={self.node} NodeAddr=127.0.0.1 CPUs={os.cpu_count()} RealMemory={memory_mb * 9 // 10} State=UNKNOWN
PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP
""")
        conf = str(h / "slurm.conf")
        self._start("slurmctld", [program("slurmctld"), "-D", "-f", conf])
        self._start("slurmd", [program("slurmd"), "-D", "-f", conf, "-N", self.node])
        self._wait_for(lambda: self.run(["sinfo", "-h", "-N", "-o", "%T"], check=False).stdout.strip() == "idle",
                       f"node {self.node} to be idle", h / "log" / "slurmd.log")

    def _start(self, name: str, argv: list[str]) -> None:
        log = open(self.home / f"{name}.console", "w")
        self.daemons.append((name, subprocess.Popen(argv, stdout=log, stderr=subprocess.STDOUT, env=self.env)))
        log.close()

    def _wait_for(self, ready, what: str, log: Path) -> None:
        deadline = time.monotonic() + DAEMON_START_SECONDS
        while time.monotonic() < deadline:
            if ready():
                return
            for name, process in self.daemons:
                if process.poll() is not None:
                    pytest.fail(f"{name} exited ({process.returncode}) while waiting for {what}:\n{self.logs()}")
            time.sleep(0.5)
        pytest.fail(f"waited {DAEMON_START_SECONDS} s for {what}; the logs:\n{self.logs()}")

    def run(self, argv: list[str], check: bool = True) -> subprocess.CompletedProcess:
        result = subprocess.run(argv, env=self.env, capture_output=True, text=True, timeout=120)
        if check and result.returncode != 0:
            pytest.fail(f"{' '.join(argv)} exited {result.returncode}: {result.stderr}")
        return result

    def job_state(self, job_id: str) -> tuple[str, str]:
        line = self.run(["scontrol", "-o", "show", "job", job_id]).stdout
        state = re.search(r"\bJobState=(\S+)", line)
        reason = re.search(r"\bReason=(\S+)", line)
        return (state.group(1) if state else "UNKNOWN", reason.group(1) if reason else "")

    def logs(self) -> str:
        text = []
        for path in sorted(self.home.rglob("*")):
            if path.is_file() and (path.suffix in (".log", ".console", ".out")):
                text.append(f"--- {path}\n{path.read_text(errors='replace')[-3000:]}")
        return "\n".join(text)

    def stop(self) -> None:
        # Jobs first, so slurmd leaves no slurmstepd behind; then the daemons, newest first.
        if any(name == "slurmctld" and p.poll() is None for name, p in self.daemons):
            subprocess.run(["scancel", "--full", "--user", "root"], env=self.env, capture_output=True, timeout=60)
            time.sleep(1)
        for name, process in reversed(self.daemons):
            if process.poll() is None:
                process.terminate()
                try:
                    process.wait(timeout=30)
                except subprocess.TimeoutExpired:
                    process.kill()
                    process.wait(timeout=30)


@pytest.fixture
def cluster():
    reason = missing_requirement()
    if reason:
        pytest.skip(reason)
    home = Path(tempfile.mkdtemp(prefix="amq-slurm-"))  # short: munge's socket path has a limit
    cluster = OneNodeCluster(home)
    try:
        cluster.start()
        yield cluster
    finally:
        cluster.stop()
        shutil.rmtree(home, ignore_errors=True)


def test_ci_suite_in_three_slurm_shards_equals_one_run(cluster):
    suite = ROOT / "suites" / "ci.toml"
    listed = subprocess.run([str(BINARY), "suite", str(suite), "--list"], capture_output=True, text=True, check=True)
    ids = [line.split()[0] for line in listed.stdout.splitlines()[1:] if line.strip()]
    only = ",".join(i for i in ids if i != "instructions")
    out = cluster.home / "sweep"
    submitted = subprocess.run(
        [str(ROOT / "scripts" / "slurm_sweep.sh"), str(suite), str(SHARDS), str(out), "--", "--only", only],
        env={**cluster.env, "AMQBENCH": str(BINARY)}, capture_output=True, text=True, timeout=120)
    assert submitted.returncode == 0, submitted.stderr
    array_id = re.search(r"^array job (\d+):", submitted.stdout, re.M).group(1)
    merge_id = re.search(r"^merge job (\d+):", submitted.stdout, re.M).group(1)

    # The unsharded run while Slurm runs the shards.
    whole = cluster.home / "whole"
    unsharded = subprocess.run([str(BINARY), "suite", str(suite), "--only", only, "--out-dir", str(whole)],
                               env=cluster.env, capture_output=True, text=True, timeout=SWEEP_SECONDS)
    assert unsharded.returncode == 0, unsharded.stderr[-3000:]

    deadline = time.monotonic() + SWEEP_SECONDS
    state, reason = cluster.job_state(merge_id)
    while state not in FINISHED_STATES:
        if reason == "DependencyNeverSatisfied":
            pytest.fail(f"a shard of array job {array_id} failed, so merge job {merge_id} never runs:\n{cluster.logs()}")
        if time.monotonic() > deadline:
            pytest.fail(f"merge job {merge_id} still {state} ({reason}) after {SWEEP_SECONDS} s:\n"
                        f"{cluster.run(['squeue'], check=False).stdout}\n{cluster.logs()}")
        time.sleep(1)
        state, reason = cluster.job_state(merge_id)
    assert state == "COMPLETED", f"merge job {merge_id}: {state} ({reason})\n{cluster.logs()}"

    # Each shard says which scheduler, job, task and node ran it; the merge, which hosts.
    tasks = set()
    for k in range(1, SHARDS + 1):
        manifest = json.loads((out / f"shard-{k}" / "suite_run.json").read_text())
        context = manifest["context"]
        assert manifest["suite"]["shard"] == f"{k}/{SHARDS}"
        assert (context["scheduler"], context["scheduler_job_id"], context["node"]) == ("slurm", array_id, cluster.node)
        tasks.add(context["scheduler_task_id"])
    assert tasks == {str(k) for k in range(1, SHARDS + 1)}
    assert f"merged {SHARDS} shards from 1 host: {cluster.node}" in (out / "logs" / "merge.out").read_text()
    merged = json.loads((out / "suite_run.json").read_text())
    assert merged["hosts"] == [cluster.node]
    assert merged["suite"]["shard"] is None

    # Equal on every deterministic field, cell for cell: amqbench compare (plots/compare.py).
    compared = subprocess.run([str(BINARY), "compare", "--json", str(whole), str(out)],
                              capture_output=True, text=True, timeout=300)
    assert compared.returncode == 0, compared.stdout[-3000:] + compared.stderr[-3000:]
    verdict = json.loads(compared.stdout)
    counts = verdict["counts"]
    assert verdict["worse"] == 0 and counts["cells_only_in_base"] == 0 and counts["cells_only_in_new"] == 0, verdict["summary"]
    assert counts["cells_matched"] > 0 and counts["values_equal"] > 0, verdict["summary"]
    assert [Path(f).name for f in verdict["base"]["files"]] == [Path(f).name for f in verdict["new"]["files"]]

    # What ran, for a closing note or a reader (shown with pytest -s or -rP; passed runs only).
    print(f"$ scripts/slurm_sweep.sh suites/ci.toml {SHARDS} {out} -- --only <the ci suite but instructions>\n"
          f"{submitted.stdout.strip()}\n"
          f"$ squeue/scontrol until merge job {merge_id} ended: {state}\n"
          f"$ cat {out}/logs/merge.out\n{(out / 'logs' / 'merge.out').read_text().strip()}\n"
          f"$ amqbench compare {whole} {out}\n{verdict['summary']}")
