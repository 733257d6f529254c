"""raygang's policy pack: `pulumi preview --policy-pack policy` (see the README)."""

from raygang_policy.wiring import serve

serve()
