"""The gamedsl grammar; installed inside the package as gamedsl.grammar."""
