"""Sketches and renders: create from code or a chat reply (curators, as the
editor), import a zip or JSONL (staff, as the import page), and read them
(any user, as the render pages)."""

from django.http import FileResponse, Http404, HttpResponse
from ninja import Query, Router, Schema, Status
from ninja.pagination import paginate

from sketches.editing import SketchEditInvalid
from sketches.importing import upload
from sketches.importing.jobs import import_job_create
from sketches.input_rules import IdParam, Seed, Text
from sketches.models import ImportJob, Render, Sketch
from sketches.selectors import render_calls_json

from ..auth import CURATOR, STAFF, USER
from ..errors import Problem, form_problems
from ..inputs import BodyIn
from ..pagination import Page
from ..schemas import ImportJobOut, RenderOut, RenderReportOut, SketchDetailOut, SketchOut
from ..services import sketch_submit
from .common import one

router = Router(tags=["sketches"])


class SketchIn(BodyIn):
    code: Text | None = None
    reply: Text | None = None
    prompt: Text = ""
    seed: Seed = 0


class RenderFilter(Schema):
    status: Render.Status | None = None
    sketch: IdParam | None = None


@router.post("/sketches", response={201: RenderOut}, auth=CURATOR,
             summary="Create a sketch from code or a chat reply, and queue its render")
def sketch_create(request, data: SketchIn):
    try:
        render = sketch_submit(code=data.code, reply=data.reply, prompt=data.prompt,
                               seed=data.seed)
    except SketchEditInvalid as error:
        raise Problem(400, "The sketch was not saved.", [str(error)]) from error
    return Status(201, render)


@router.get("/sketches", response=list[SketchOut], auth=USER)
@paginate(Page)
def sketches_list(request):
    return Sketch.objects.order_by("-pk")


@router.get("/sketches/{pk}", response=SketchDetailOut, auth=USER)
def sketch_detail(request, pk: int):
    return one(Sketch.objects, pk, "sketch")


# The body is read here, not by ninja: the import page's size limit must be
# installed before anything reads it (sketches.importing.upload).
IMPORT_BODY = {"requestBody": {"required": True, "content": {"multipart/form-data": {"schema": {
    "type": "object", "required": ["archive"],
    "properties": {"archive": {"type": "string", "format": "binary",
                               "description": "a zip of .js sketches or a JSONL file"}}}}}},
    "responses": {413: {"description": "the file is over PAINTRL_IMPORT_MAX_UPLOAD_BYTES",
                        "content": {"application/json": {
                            "schema": {"$ref": "#/components/schemas/Problem"}}}}}}


@router.post("/imports", response={201: ImportJobOut}, auth=STAFF.needs("sketches.add_importjob"),
             openapi_extra=IMPORT_BODY,
             summary="Import a zip of sketches or a JSONL file (the import page's formats)")
def import_create(request):
    if upload.body_too_large(request):
        raise Problem(413, upload.ImportUploadForm.too_large_message())
    handler = upload.SizeLimitUploadHandler(request)
    request.upload_handlers.insert(0, handler)
    form = upload.ImportUploadForm(request.POST, request.FILES, upload_handler=handler)
    if not form.is_valid():
        raise Problem(413 if form.upload_stopped else 400, "The file was not imported.",
                      form_problems(form.errors))
    job = import_job_create(upload=form.cleaned_data["archive"], kind=form.kind,
                            uploaded_by=request.user)
    return Status(201, job)


@router.get("/imports/{pk}", response=ImportJobOut, auth=STAFF)
def import_detail(request, pk: int):
    return one(ImportJob.objects, pk, "import")


@router.get("/renders", response=list[RenderOut], auth=USER)
@paginate(Page)
def renders_list(request, filters: Query[RenderFilter]):
    renders = Render.objects.order_by("-pk")
    if filters.status:
        renders = renders.filter(status=filters.status)
    if filters.sketch is not None:
        renders = renders.filter(sketch_id=filters.sketch)
    return renders


@router.get("/renders/{pk}", response=RenderOut, auth=USER)
def render_detail(request, pk: int):
    return one(Render.objects, pk, "render")


@router.get("/renders/{pk}/report", response=RenderReportOut, auth=USER)
def render_report(request, pk: int):
    return one(Render.objects, pk, "render")


@router.get("/renders/{pk}/png", auth=USER, url_name="render_png",
            response={200: None}, openapi_extra={"responses": {200: {
                "description": "The PNG", "content": {"image/png": {}}}}})
def render_png(request, pk: int):
    render = one(Render.objects, pk, "render")
    if not render.png:
        raise Http404(f"render {pk} has no image (status {render.status})")
    return FileResponse(render.png.open("rb"), content_type="image/png")


@router.get("/renders/{pk}/calls", auth=USER, url_name="render_calls",
            response={200: None}, openapi_extra={"responses": {200: {
                "description": "The p5.brush calls the picture was painted from: "
                               "{frames: [[[name, ...arguments], ...], ...]}",
                "content": {"application/json": {}}}}})
def render_calls(request, pk: int):
    render = one(Render.objects, pk, "render")
    body = render_calls_json(render)
    if body is None:
        raise Http404(f"render {pk} was not painted from recorded calls")
    return HttpResponse(body, content_type="application/json")
