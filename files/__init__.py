"""Reading stored files wherever the storage keeps them (no app, no table)."""
