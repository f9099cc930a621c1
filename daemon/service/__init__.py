"""The service: scheduler, transcript watcher, systemd notification, service files."""
