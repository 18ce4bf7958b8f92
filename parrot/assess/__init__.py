"""``parrot assess``: translate and verify a whole workload, on the user's data or on data
generated from the schema alone.

* :mod:`parrot.assess.inputs` reads a workload: a folder of ``.sql`` files, one file, or a query
  log (one statement per line or ``;``-separated; a PostgreSQL ``pg_stat_statements`` CSV export;
  a MySQL general or slow query log);
* :mod:`parrot.assess.schema` turns DDL into an empty fixture (``--schema``);
* :mod:`parrot.assess.templates` groups statements by template and carries a translation over to
  the statements of a template whose literals allow it;
* :mod:`parrot.assess.placeholders` fills placeholders from the columns they are compared with;
* :mod:`parrot.assess.dml` runs DML on a copy of each database and compares the written table;
* :mod:`parrot.assess.run` translates each template once, verifies every statement by dual
  execution on every database, and writes the translated tree, ``assessment.jsonl`` and
  ``assessment.html``.
"""
