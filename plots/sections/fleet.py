"""A fleet in one picture: this report's run beside the latest run of every other host in the
results history (<results>/history.sqlite, runs of the report's suite), each filter's lookups
against the host's own random-line ceiling at 1 thread and at all cores, and which host wins
what (plots/fleet.py says how). Shown only when the store holds another host; report.py
registers it after the suite's sections."""

from __future__ import annotations

import compare
import fleet
import history
import hosts
from result_set import ResultSet

SECTION = "fleet"
STORE = "history.sqlite"  # in the results directory, where history.py record keeps it by default


def host_name(results: ResultSet) -> str | None:
    """The host this report's files say they ran on (their contexts' host_name)."""
    names = (results.file(e.id).context.get("host_name") for e in results.experiments())
    return next((name for name in names if name), None)


def render(results: ResultSet) -> str | None:
    db = results.directory / STORE
    here = host_name(results)
    if not db.is_file() or here is None:
        return None
    command = (f"/usr/bin/python3 plots/fleet.py --db {db} --suite {results.suite.name}"
               f" --host {here}={results.directory} --out DIR")
    try:
        others = fleet.hosts_of_store(db, results.suite.name, results.schema, history.DEFAULT_TIMEOUT, {here})
    except (history.HistoryError, compare.BadInput, OSError) as error:
        return "\n".join(["## A fleet of hosts", "", f"Not shown: {error}. `{command}` says the same."])
    if not others:
        return None
    this = fleet.Host(here, f"this report's results (`{results.directory.name}/`)", results)
    found = fleet.gather([this, *others])
    heading = fleet.title(found)
    images = {}
    for setting, stem in fleet.SETTINGS.items():
        data = fleet.fleet_chart(found.points, found.names, setting, heading, found.missing)
        images[setting] = results.figure(f"fleet_{stem}", f"{heading}: {setting}",
                                          lambda out, data=data: hosts.write_png(data, out))
    return "\n".join([f"## {heading}", "", *fleet.markdown(found, command, images)])
