"""Screenshots for the README, taken from a running app with the system
Chromium: python scripts/screenshots.py --url http://127.0.0.1:8000 --user admin --password ...

Each page is captured as a logged-in user sees it, into docs/screenshots/.
`--page NAME=PATH` (repeatable) captures other pages instead, e.g.
--page lab.png=/training/lab/replays/1/ --height 1800."""
from __future__ import annotations

import argparse
import os
from pathlib import Path

from playwright.sync_api import sync_playwright

PAGES = {
    "home.png": "/",
    "grading.png": "/rate/",
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--url", default="http://127.0.0.1:8000")
    parser.add_argument("--user", default=os.environ.get("PAINTRL_ADMIN_USER", "admin"))
    parser.add_argument("--password", default=os.environ.get("PAINTRL_ADMIN_PASSWORD"))
    parser.add_argument("--out", type=Path, default=Path("docs/screenshots"))
    parser.add_argument("--page", action="append", default=[], metavar="NAME=PATH",
                        help="capture PATH into NAME instead of the default pages")
    parser.add_argument("--height", type=int, default=1100, help="viewport height")
    parser.add_argument("--chromium", default=os.environ.get("PAINTRL_CHROMIUM_PATH",
                                                             "/usr/bin/chromium"))
    args = parser.parse_args()
    if not args.password:
        parser.error("--password (or PAINTRL_ADMIN_PASSWORD) is required")
    pages = dict(item.split("=", 1) for item in args.page) if args.page else PAGES
    args.out.mkdir(parents=True, exist_ok=True)
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=args.chromium)
        page = browser.new_page(viewport={"width": 1280, "height": args.height})
        page.goto(f"{args.url}/login/")
        page.fill("input[name=username]", args.user)
        page.fill("input[name=password]", args.password)
        page.click("button[type=submit]")
        page.wait_for_url(f"{args.url}/")
        for name, path in pages.items():
            page.goto(f"{args.url}{path}")
            page.wait_for_load_state("networkidle")
            page.screenshot(path=args.out / name, full_page=False)
            print(f"saved {args.out / name}")
        browser.close()


if __name__ == "__main__":
    main()
