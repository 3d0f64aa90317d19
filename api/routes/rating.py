"""Grades and comparisons. Curators grade and compare, and see their own;
staff see everyone's and export them (as the pages: a curator who saw the
others' verdicts would no longer judge independently, sketches.access)."""

from django.http import StreamingHttpResponse
from django.urls import reverse
from ninja import Query, Router, Schema, Status
from ninja.pagination import paginate

from rating import comparison_transfer, export
from rating.models import Comparison, Grade
from rating.selectors import renders_gradable
from rating.services import comparison_submit, grade_submit
from sketches.input_rules import ClientKey, Id, IdParam, ShownMs, Text
from sketches.models import Render

from ..auth import CURATOR, STAFF
from ..errors import Problem
from ..inputs import BodyIn
from ..pagination import Page
from ..schemas import ComparisonOut, GradeOut
from .common import one

router = Router(tags=["grades"])


class GradeIn(BodyIn):
    render: Id
    value: Grade.Value
    shown_ms: ShownMs | None = None
    # The client's name for this request: sent again on a retry, it changes nothing.
    key: ClientKey | None = None


class GradeFilter(Schema):
    render: IdParam | None = None
    curator: Text | None = None


class ComparisonIn(BodyIn):
    left: Id
    right: Id
    choice: Comparison.Choice
    shown_ms: ShownMs | None = None


def _own_unless_staff(request, rows):
    return rows if request.user.is_staff else rows.filter(curator=request.user)


def _gradable(pk: int) -> Render:
    render = one(Render.objects.select_related("sketch"), pk, "render")
    if not renders_gradable().filter(pk=pk).exists():
        raise Problem(409, f"render {pk} cannot be graded: it is {render.status}, and only "
                           "renders with an image that passed the gate are")
    return render


@router.post("/grades", response={201: GradeOut}, auth=CURATOR,
             summary="Grade a render (again: the new value replaces yours, history kept)")
def grade_create(request, data: GradeIn):
    render = _gradable(data.render)
    try:
        grade, _previous = grade_submit(curator=request.user, render=render, value=data.value,
                                        shown_ms=data.shown_ms, key=data.key or "")
    except ValueError as error:
        raise Problem(409, "The grade was not saved.", [f"key: {error}"]) from error
    if grade is None:
        raise Problem(409, f"render {render.pk}: this request was saved, and its grade "
                           "withdrawn since")
    return Status(201, grade)


@router.get("/grades", response=list[GradeOut], auth=CURATOR,
            summary="Your grades (staff: everyone's)")
@paginate(Page)
def grades_list(request, filters: Query[GradeFilter]):
    grades = _own_unless_staff(request, Grade.objects.select_related("curator").order_by("pk"))
    if filters.render is not None:
        grades = grades.filter(render_id=filters.render)
    if filters.curator:
        grades = grades.filter(curator__username=filters.curator)
    return grades


@router.get("/grades/export", auth=STAFF, response={200: None},
            summary="Every graded render as JSONL (paintrl-grades/1, rating.export)")
def grades_export(request):
    def png_url(render) -> str:
        return request.build_absolute_uri(reverse("api:render_png", args=[render.pk]))

    return StreamingHttpResponse(export.jsonl_lines(png_url),
                                 content_type="application/jsonl; charset=utf-8")


@router.post("/comparisons", response={201: ComparisonOut}, auth=CURATOR,
             summary="Say which of two renders of one prompt is better")
def comparison_create(request, data: ComparisonIn):
    left, right = _gradable(data.left), _gradable(data.right)
    try:
        comparison = comparison_submit(curator=request.user, left=left, right=right,
                                       choice=data.choice, shown_ms=data.shown_ms)
    except ValueError as error:
        raise Problem(400, "The comparison was not saved.", [str(error)]) from error
    return Status(201, comparison)


@router.get("/comparisons", response=list[ComparisonOut], auth=CURATOR,
            summary="Your comparisons (staff: everyone's)")
@paginate(Page)
def comparisons_list(request):
    return _own_unless_staff(request, Comparison.objects.select_related("curator")
                             .order_by("pk"))


@router.get("/comparisons/export", auth=STAFF, response={200: None},
            summary="Every comparison as JSONL (rating.comparison_transfer)")
def comparisons_export(request):
    return StreamingHttpResponse(comparison_transfer.jsonl_lines(),
                                 content_type="application/jsonl; charset=utf-8")
