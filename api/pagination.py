"""Every list is a page: ?limit=&offset=, answered as {"items": [...],
"count": total}."""
from ninja import Field, Schema
from ninja.pagination import LimitOffsetPagination

from sketches.input_rules import OFFSET_MAX

PER_PAGE = 50
# A page this long is a few MB of sketch code at most.
MAX_LIMIT = 500


class Page(LimitOffsetPagination):
    class Input(Schema):
        limit: int = Field(PER_PAGE, ge=1, le=MAX_LIMIT)
        offset: int = Field(0, ge=0, le=OFFSET_MAX)

    def __init__(self, **kwargs):
        super().__init__(max_limit=MAX_LIMIT, **kwargs)
