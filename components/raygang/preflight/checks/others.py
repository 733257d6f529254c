"""The other jobs of the session in words: who allocate serves before this gang and why, who
its queue's deserved share caps, and who waits for this gang's turn.

The words are raygang's (Volcano logs the queue order and the overused queues at verbosity 3
and 4 only, and writes no event for them); the turns are
:func:`raygang.volcano.actions.others.place_others`'.
"""

from __future__ import annotations

from raygang.preflight.siblings import SIBLINGS_NAMED
from raygang.volcano.api import Num, Res, ordered, show_res
from raygang.volcano.decisions import Ahead, Before, Later, Skipped, Step

THIS = "this gang"


def share_text(share: Num) -> str:
    """A share as proportion logs it (two decimals), trailing zeros dropped."""
    return f"{float(share):.2f}".rstrip("0").rstrip(".")


def ahead_text(ahead: Ahead) -> str:
    """Why ``ahead.first``'s turn comes before ``ahead.second``'s: the queue order."""
    first, second = ahead.first, ahead.second
    if first.priority != second.priority:
        return f"queue {first.name}'s priority {first.priority} is above {second.name}'s " + str(
            second.priority
        )
    one, other = share_text(ahead.first_share), share_text(ahead.second_share)
    if ahead.first_share != ahead.second_share:
        return f"queue {first.name}'s share {one} is below {second.name}'s {other}"
    both = f"queues {first.name} and {second.name} both have share {one}"
    if first.created != second.created:
        return f"{both}, {first.name} is older"
    return f"{both}, {first.name} comes first by name"


def names_text(jobs: list[str]) -> str:
    shown = jobs[:SIBLINGS_NAMED]
    more = len(jobs) - len(shown)
    return ", ".join(shown) + (f" and {more} more" if more else "")


def figures(names: list[str], deserved: Res, allocated: Res, ask: Res | None = None) -> str:
    text = f"deserved {show_res(deserved, names)}, allocated {show_res(allocated, names)}"
    return text + (f", its gang asks {show_res(ask, names)}" if ask is not None else "")


def step_text(step: Step) -> str:
    why = f" ({ahead_text(step.ahead)})" if step.ahead is not None else ""
    if step.kind == "gang":
        more = f" and {step.pods} more pod(s)" if step.pods else ""
        return f"{step.job} places its gang{more} first{why}"
    if step.kind == "pipelined":
        return (
            f"{step.job} holds room for its gang first{why}, some pods waiting for room "
            "terminating pods release"
        )
    if step.kind == "pods":
        return f"{step.job} places {step.pods} pending pod(s) first{why}"
    assert step.cap is not None
    names, deserved, allocated, ask = step.cap
    comes = f"{step.job} comes first{why} but" if why else step.job
    return (
        f"{comes} is capped by queue {step.queue}'s deserved share, so it places nothing "
        f"({figures(list(names), deserved, allocated, ask)})"
    )


def skipped_text(skipped: Skipped, own: str) -> str | None:
    """The queue skipped and its jobs; None when none is worth a word: the other jobs of a
    queue that is not Open would have taken nothing in their turns."""
    names = [n for n in ordered(skipped.deserved) if n != "pods" and skipped.deserved[n] > 0]
    kept = [key for key in skipped.jobs if key == own or not skipped.closed]
    if not kept:
        return None
    jobs = [THIS if key == own else key for key in kept]
    return (
        f"queue {skipped.queue} has used its deserved share "
        f"({figures(names, skipped.deserved, skipped.allocated)}), so allocate skips "
        f"{names_text(jobs)}"
    )


def later_text(later: list[Later]) -> list[str]:
    """This gang's turn before theirs, one note per reason. The jobs of a queue that is not
    Open are left out: their turns take nothing, so they wait for no one."""
    groups: dict[str, list[str]] = {}
    for item in later:
        if item.why == "closed":
            continue
        if item.why == "queue":
            assert item.ahead is not None
            why = ahead_text(item.ahead)
        elif item.why == "ready":
            why = f"queue {item.queue}'s job order puts gangs not yet ready first"
        elif item.why == "share":
            why = f"queue {item.queue}'s job order puts the job holding less of the cluster first"
        else:
            why = f"queue {item.queue}'s job order"
        groups.setdefault(why, []).append(item.job)
    return [f"{THIS} is placed before {names_text(jobs)} ({why})" for why, jobs in groups.items()]


def before_notes(before: Before, own: str) -> list[str]:
    """What happens before this gang's turn: the other jobs' turns, the queues skipped."""
    skipped = (skipped_text(s, own) for s in before.skipped)
    return [step_text(s) for s in before.steps] + [text for text in skipped if text is not None]


def notes(before: Before, own: str) -> list[str]:
    """Every note: before this gang's turn, then the jobs whose turn comes after it."""
    return before_notes(before, own) + later_text(before.later)
