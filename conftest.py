# Registers the claims engine's collector: pytest collects one test per
# (claim, framework, device) from snippets/*/claims.toml (see snippets/README.md).
# pytester lets the engine's own tests run pytest on fixture claims.
pytest_plugins = ["verified.pytest_plugin", "pytester"]
