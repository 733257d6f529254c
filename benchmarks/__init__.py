"""raygang benchmarks: ``python -m benchmarks`` (or ``make bench``).

Scenarios, each reported as a ratio against a baseline measured in the same run:

* ``quantity``: :class:`raygang.kube.quantity.Quantity` parsing and summing vs lightkube;
* ``planning``: load, plan (and preflight, with a cluster snapshot) and render N jobs,
  with the fitted growth exponent;
* ``memory``: peak memory of the largest plan;
* ``pulumi``: RayJobGang components vs bare resources under the SDK's mocks;
* ``plan-vs-pulumi``: planning time vs the time Pulumi needs to register the same jobs.
"""
