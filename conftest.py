# Registers the claims engine's collector: pytest collects one test per
# (claim, framework, device) from snippets/*/claims.toml. See snippets/README.md.
pytest_plugins = ["verified.pytest_plugin"]
