"""Load benchmarks of the live site (run through management commands; see docs/performance.md)."""
