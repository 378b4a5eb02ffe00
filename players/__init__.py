"""Players: people (linked to auth users) and bots, with their rating and counters."""
