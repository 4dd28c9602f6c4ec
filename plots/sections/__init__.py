"""One module per report section id a suite names (`section = "..."`), plus provenance.

Each module exposes `render(results: ResultSet) -> str | None`: the section's Markdown, or None
when the result files it needs are missing (the report then lists what was left out). Every
sentence that judges a claim is computed through stats.verdict (or its interval and chance
variants) with its tolerance printed beside it.
"""
