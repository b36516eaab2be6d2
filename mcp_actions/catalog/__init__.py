"""The catalog: every exposed tool with how to run it, built from loaded manifests."""
