# scenarios/: the scenario language (loader, schema, units) and bundled YAML.
noinst_LTLIBRARIES += scenarios/libscenarios.la
scenarios_libscenarios_la_SOURCES =
