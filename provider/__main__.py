"""raygang's component provider: RayJobGang and VolcanoQueue for programs in any language.

The engine runs this folder (PulumiPlugin.yaml, runtime python) through the Python language
host's RunPlugin, with the engine's address as the argument. The schema is inferred from the
classes' ``args`` annotations (``raygang.component.package``), as
``pulumi.provider.experimental.component_provider_host`` infers it; ``serve`` is that host
with raygang's errors reported as invalid inputs.
"""

import sys
from importlib.metadata import version

from raygang.component.package import serve

if __name__ == "__main__":
    serve(sys.argv[1:], version("raygang"))
