"""python manage.py api_token create USER NAME | revoke PREFIX | list [USER]

Make a token for a user (printed once: only its hash is kept), revoke one by
the prefix the lists show, or list the tokens."""
from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError

from api.models import ApiToken
from api.tokens import TokenError, token_create, token_revoke


class Command(BaseCommand):
    help = "Make, revoke or list API tokens."

    def add_arguments(self, parser):
        verbs = parser.add_subparsers(dest="verb", required=True)
        create = verbs.add_parser("create", help="make a token; it is printed once")
        create.add_argument("username")
        create.add_argument("name", help="what will use it")
        revoke = verbs.add_parser("revoke", help="revoke the token with this prefix")
        revoke.add_argument("prefix")
        listing = verbs.add_parser("list", help="list tokens")
        listing.add_argument("username", nargs="?")

    def handle(self, *args, verb, **options):
        getattr(self, f"_{verb}")(**options)

    def _create(self, *, username, name, **_):
        user = self._user(username)
        try:
            _token, raw = token_create(user=user, name=name)
        except TokenError as error:
            raise CommandError(str(error)) from error
        self.stdout.write(raw)

    def _revoke(self, *, prefix, **_):
        found = list(ApiToken.objects.filter(prefix=prefix, revoked__isnull=True))
        if len(found) != 1:
            raise CommandError(f"{len(found)} active tokens start {prefix!r}: give one token's "
                               "prefix as `api_token list` shows it")
        token_revoke(token=found[0])
        self.stdout.write(f"revoked {found[0]}")

    def _list(self, *, username=None, **_):
        tokens = ApiToken.objects.select_related("user").order_by("-created")
        if username:
            tokens = tokens.filter(user=self._user(username))
        for token in tokens:
            self.stdout.write(str(token))

    def _user(self, username):
        try:
            return get_user_model().objects.get(username=username)
        except get_user_model().DoesNotExist:
            raise CommandError(f"there is no user {username!r}") from None
