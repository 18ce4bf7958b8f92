"""Terminal tables stay readable at 80 columns: group labels and numbers are never cut."""

from rich.console import Console

from parrot.report.render import SCORE_HEADERS, Table, print_rich


def test_rich_tables_fit_80_columns_without_cutting_labels_or_numbers() -> None:
    rows = [(pair, 155, 0, 155, "58.9", 155, "49.6", "41.0", 155, "49.6", "49.6", "49.6", 155,
             "100.0")
            for pair in ("clickhouse→postgres", "databricks→snowflake", "sqlite→duckdb")]
    console = Console(width=80, record=True)
    print_rich([Table("By dialect pair", SCORE_HEADERS, rows)], console)
    text = console.export_text()
    assert "…" not in text
    assert all(len(line) <= 80 for line in text.splitlines())
    for pair, *_ in rows:
        assert pair in text
    assert "By dialect pair (%)" in text and "100.0" in text
    assert "≠∅" not in text  # left to python -m parrot.report
