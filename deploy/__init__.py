"""Service definitions ``dreamd install-service`` writes: systemd user unit, launchd agent."""
