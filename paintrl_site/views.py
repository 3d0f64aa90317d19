from django.shortcuts import render

from sketches import selectors


def home(request):
    """What is there and what to do next; the counts poll while renders stream in."""
    context = {
        "counts": selectors.render_status_counts(),
        "recent": selectors.renders_recent(),
    }
    if request.htmx:
        return render(request, "home.html#render-counts", context)
    return render(request, "home.html", context)
