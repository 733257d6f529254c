"""raygang benchmarks: ``python -m benchmarks`` (or ``make bench``).

Scenarios, each reported as a ratio, exponent or peak measured in the same run:

* ``file``: ``raygang plan`` of one file of 1000 KubeRay-style jobs (7 MB) as its own
  process, against the floor (libyaml load + ``json.dumps`` of the same file), and its peak
  resident memory;
* ``preflight``: ``raygang plan --cluster`` of 100 jobs against a 500-node snapshot (``make
  bench-real`` divides it by the real ``pulumi preview`` of the same jobs);
* ``growth``: the planning pass timed in jobs and in nodes, with the fitted exponents.

``python -m benchmarks.real_engine`` (``make bench-real``) runs the real Pulumi engine on a
local control plane.
"""
