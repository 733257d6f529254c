"""A job's life without a controller: the facts a cluster reports, what was observed, and
what the next ``up`` declares (as KubeRay's ``rayjob_controller.go`` would converge it).
"""
