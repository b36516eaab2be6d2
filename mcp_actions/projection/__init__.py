"""State projections: compact, schema-checked application state read from the live page.

``extract`` builds one ``dom.extract`` request for several projections and
splits its answer; ``project`` runs a projection's JSONata expression, output
schema and summaries within byte budgets; ``diff`` gives RFC 6902 patches and
semantic deltas; ``store`` keeps the previous snapshots; ``service`` ties them
to runtimes (read, summary, diff, postconditions, change hooks).
"""
