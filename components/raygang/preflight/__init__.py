"""The preflight report: will Volcano ever admit and place a job's gang, in Volcano's words
and ours (:mod:`raygang.preflight.run`), over the scheduler model of :mod:`raygang.volcano`.

Internal: not part of raygang's public surface (the names ``raygang`` exports); everything
in this package may change without notice.
"""
