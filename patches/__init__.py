"""Built-in patches: one sub-package per patch, each exposing ``PATCH``."""
