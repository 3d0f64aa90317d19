"""Models arrive with this app's issue; the app is installed so its migrations have a home."""
