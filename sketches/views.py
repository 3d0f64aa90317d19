from django.http import FileResponse, Http404
from django.shortcuts import get_object_or_404, render

from .models import Render


def render_detail(request, pk: int):
    obj = get_object_or_404(Render.objects.select_related("sketch"), pk=pk)
    return render(request, "sketches/render_detail.html", {"render": obj})


def render_png(request, pk: int):
    """The PNG through the app (login required), not a public media URL."""
    obj = get_object_or_404(Render, pk=pk)
    if not obj.png:
        raise Http404("this render has no image")
    return FileResponse(obj.png.open("rb"), content_type="image/png")
