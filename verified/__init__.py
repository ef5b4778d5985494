"""Claims engine of Autograd, Verified: declare, run, report and render claims.

- :mod:`verified.claims` loads and validates ``snippets/*/claims.toml``;
- :mod:`verified.runner` runs them in worker processes and judges the observations;
- :mod:`verified.pytest_plugin` turns each (claim, framework, device) into a pytest item and
  writes ``build/claims.json`` (:mod:`verified.report`);
- :mod:`verified.mkdocs_hooks` renders observed values into the pages.
"""
