"""raygang's policy pack: gang correctness for every Pulumi stack, raygang's or not.

``objects`` (the resources as plain data), ``settings`` (nodes, snapshot, known queues),
``gangs`` (each gang planned by raygang), ``rules`` (one pure function per policy),
``catalogue`` (the policies and their levels), ``wiring`` (the pulumi_policy glue, the only
module importing the policy SDK, which lives in the pack's own virtualenv).
"""
