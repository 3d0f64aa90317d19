from django.shortcuts import render

from sketches import selectors

from . import overview


def home(request):
    """What is there and what to do next; the render progress polls while
    renders stream in."""
    context = {"progress": overview.render_progress()}
    if request.htmx:
        return render(request, "home.html#render-progress", context)
    context |= {
        "grading": overview.grading_progress(),
        "recent": selectors.renders_recent(),
    }
    if request.user.is_staff:
        context["reward_model"] = overview.reward_model_state()
    return render(request, "home.html", context)
