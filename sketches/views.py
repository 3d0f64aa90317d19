
from django.http import FileResponse, Http404, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.csrf import csrf_exempt, csrf_protect

from . import gate, selectors
from .access import staff_required
from .importing import upload
from .importing.conf import max_upload_bytes
from .importing.jobs import import_job_create, import_jobs_recent
from .models import ImportJob, Render
from .render_panels import render_panels_for


def render_detail(request, pk: int):
    obj = get_object_or_404(Render.objects.select_related("sketch"), pk=pk)
    # For a timeout, how far the sketch got (the gate's account, stored with
    # the render): its picture is then the one it had so far, not a result.
    stopped = obj.violation_details.get(gate.TIMEOUT) if gate.TIMEOUT in obj.violations else None
    previous, following = selectors.render_neighbours(obj)
    return render(request, "sketches/render_detail.html", {
        "render": obj, "stopped": stopped, "previous": previous, "next": following,
        "panels": render_panels_for(request, obj)})


def render_png(request, pk: int):
    """The PNG through the app (login required), not a public media URL."""
    obj = get_object_or_404(Render, pk=pk)
    if not obj.png:
        raise Http404("this render has no image")
    return FileResponse(obj.png.open("rb"), content_type="image/png")


def render_calls(request, pk: int):
    """The p5.brush calls the picture was painted from, as JSON (login
    required): the painting as data, to diff, replay and inspect."""
    body = selectors.render_calls_json(get_object_or_404(Render, pk=pk))
    if body is None:
        raise Http404("this render was not painted from recorded calls")
    return HttpResponse(body, content_type="application/json")


# --- Import (staff only) ------------------------------------------------

# CSRF is checked in _import_upload instead: the size-limiting upload handler
# must be installed before anything reads the body, and the CSRF middleware
# reads it to find the token (Django's documented pattern for upload handlers).
@csrf_exempt
@staff_required(reason="Only staff can import sketches and grades.")
def import_upload(request):
    """The upload form and the recent import jobs."""
    handler = None
    if request.method == "POST":
        if upload.body_too_large(request):
            return _import_page(request, upload.ImportUploadForm(), status=413,
                                refused=upload.ImportUploadForm.too_large_message())
        handler = upload.SizeLimitUploadHandler(request)
        request.upload_handlers.insert(0, handler)
    return _import_upload(request, handler)


@csrf_protect
def _import_upload(request, handler):
    if request.method != "POST":
        return _import_page(request, upload.ImportUploadForm())
    form = upload.ImportUploadForm(request.POST, request.FILES, upload_handler=handler)
    if not form.is_valid():
        return _import_page(request, form, status=413 if form.upload_stopped else 400)
    job = import_job_create(upload=form.cleaned_data["archive"], kind=form.kind,
                            uploaded_by=request.user, brush=form.cleaned_data["brush"])
    return redirect("sketches:import_job", pk=job.pk)


def _import_page(request, form, *, status: int = 200, refused: str = ""):
    context = {"form": form, "refused": refused, "jobs": import_jobs_recent(),
               "max_upload_bytes": max_upload_bytes()}
    return render(request, "sketches/import.html", context, status=status)


@staff_required(reason="Only staff can import sketches and grades.")
def import_job(request, pk: int):
    """One import's progress and report; the htmx fragment polls while it runs."""
    job = get_object_or_404(ImportJob.objects.select_related("uploaded_by"), pk=pk)
    template = "sketches/import_job.html#job-progress" if request.htmx \
        else "sketches/import_job.html"
    return render(request, template, {"job": job})
