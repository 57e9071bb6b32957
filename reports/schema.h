/*
 * The results database schema: the text of reports/schema.sql, embedded at
 * build time (reports/local.mk generates reports/schema-sql.c from it), and
 * its version number. The two must agree: schema.sql sets PRAGMA
 * user_version and meta.schema_version to RPT_SCHEMA_VERSION, and the Check
 * suite rpt_db asserts that they do. Read-only data; no state.
 */
#ifndef RPT_SCHEMA_H
#define RPT_SCHEMA_H

/* The schema version this program reads and writes. Raise it whenever
 * reports/schema.sql changes. */
#define RPT_SCHEMA_VERSION 9

/* The whole of reports/schema.sql as one NUL-terminated string of SQL
 * statements, for sqlite3_exec() on an empty database. Static storage. */
extern const char rpt_schema_sql[];

#endif /* RPT_SCHEMA_H */
