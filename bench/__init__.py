"""Benchmarks for Deniable (issue 5). See bench/README.md and bench/RESULTS.md."""
