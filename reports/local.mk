# reports/: SQLite schema and writer, summary table and JSON.
noinst_LTLIBRARIES += reports/libreports.la
reports_libreports_la_SOURCES =
