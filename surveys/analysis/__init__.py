"""Analysis: regression (synchronous and as a job), power, the reports export and what its
shuffle guarantees, exact sums for releases, confidence, simulated respondents."""
