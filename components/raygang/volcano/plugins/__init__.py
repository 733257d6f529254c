"""Volcano's scheduler plugins of the default configuration, one module each
(``pkg/scheduler/plugins/<name>/<name>.go``).
"""
