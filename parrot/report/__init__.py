"""Reports: metrics over outcome records and their tables (Markdown, CSV, JSON, terminal)."""
