"""Survey definitions: the question's design glue, validated write specs, translations,
innocuous statements, the no-JS randomizers and the freeze of an opened survey."""
