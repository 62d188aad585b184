"""The tools: the `gamedsl` command line and what its commands run (terminal play, simulate,
scenarios, verify, logs)."""
