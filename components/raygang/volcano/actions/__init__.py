"""Volcano's scheduler actions, one module each (``pkg/scheduler/actions/<name>/<name>.go``)."""
