from django.shortcuts import render
from django.views.decorators.http import require_GET

from sketches import selectors
from sketches.access import is_curator, staff_required
from training.runs.presenters import builtin_policy_state

from . import job_presenters, overview


def home(request):
    """What is there and what to do next; the render progress polls while
    renders stream in."""
    context = {"progress": overview.render_progress()}
    if request.htmx:
        return render(request, "home.html#render-progress", context)
    context |= {
        "grading": overview.grading_progress(),
        "recent": selectors.renders_recent(),
        # None: not a curator, so nothing waits for them (the page says whom to ask).
        "waiting": overview.renders_waiting(request.user) if is_curator(request.user) else None,
    }
    if request.user.is_staff:
        context["reward_model"] = overview.reward_model_state()
        context["policy"] = builtin_policy_state()
        context["loop"] = overview.loop_progress(
            grading=context["grading"], reward_model=context["reward_model"],
            policy_ready=context["policy"]["ready"])
        context["running"] = job_presenters.jobs_running()
    return render(request, "home.html", context)


@require_GET
@staff_required(reason="Only staff can see the jobs page.")
def jobs(request):
    """Every queued and running job; the table polls while any is live."""
    context = job_presenters.jobs_page()
    if request.htmx:
        return render(request, "jobs.html#jobs-table", context)
    return render(request, "jobs.html", context)
