"""The preflight's checks, one module per stage: each turns the scheduler model's answer into a
check row, our explanation and the smallest fix."""
