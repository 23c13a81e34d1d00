"""Built-in checks: one module per check, each exposing ``CHECK`` with its own examples."""
