"""axe-core (WCAG 2.1 AA) on every public and admin page in headless Chromium at 1280 and 390 px.

Each page is opened once and audited at both widths: no critical or serious violation, no
form field's ARIA reference to a missing id, and no console error or CSP violation. axe-core
is fetched with npm into var/node by `make test` (the Makefile's `axe-core` target). Only
Swagger UI's own markup on /api/docs is left out of the audit.
"""

from __future__ import annotations

from datetime import timedelta
from http import HTTPStatus
from pathlib import Path
from urllib.parse import urljoin

import pytest
from axes.models import AccessAttempt, AccessFailureLog, AccessLog
from django.contrib.auth.models import Group
from django.contrib.auth.models import User as StaffUser

from api.models import ApiToken
from catalog.models import Skill
from dynamo.models import utcnow
from dynamo_admin.models import AdminLog
from stats.history.recording import record_session
from tests.browser_fixtures import STAFF_USERNAME, staff_and_skills, staff_page, watch
from users.models import User, UserSkill

pytestmark = [pytest.mark.browser, pytest.mark.engines("local")]

AXE = Path(__file__).resolve().parent.parent / "var/node/node_modules/axe-core/axe.min.js"
WIDTHS = ({"width": 1280, "height": 800}, {"width": 390, "height": 844})
# What Chromium's console says of any answer of 400 or more, the page's own included.
FAILED_LOAD = "Failed to load resource: the server responded with a status of"

# axe's CSSOM preload (for css-orientation-lock alone) copies @import-ed style sheets into
# <style> elements, which the CSP refuses: two console errors of axe's own on every admin form.
AUDIT = """async (exclude) => {
    const context = exclude.length ? {exclude: exclude.map(selector => [selector])} : document;
    const results = await axe.run(context, {
        runOnly: {type: "tag", values: ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]},
        resultTypes: ["violations"],
        preload: false,
    });
    const found = results.violations
        .filter(v => v.impact === "critical" || v.impact === "serious")
        .map(v => ({
            rule: `${v.id}, ${v.impact}`,
            help: v.help,
            nodes: v.nodes.map(n => [n.target.join(" "), n.failureSummary]),
        }));
    // axe leaves a form field's ARIA reference to a missing id for review: here it fails.
    // (Only form fields': Django's read-only password hash, a <div>, names a help text its
    // own fieldset template gives no id.)
    const missing = [];
    for (const name of ["aria-describedby", "aria-labelledby"]) {
        for (const element of document.querySelectorAll(`:is(input, select, textarea)[${name}]`)) {
            if (exclude.some(selector => element.closest(selector))) continue;
            for (const id of element.getAttribute(name).split(/\\s+/).filter(Boolean)) {
                if (document.getElementById(id)) continue;
                const field = element.outerHTML.slice(0, 120);
                missing.push([field, `${name}="${id}": no element has that id`]);
            }
        }
    }
    if (missing.length) {
        found.push({rule: "idref", help: "ARIA names a missing id", nodes: missing});
    }
    return found;
}"""


@pytest.fixture
def site(dynamo, live_server, transactional_db):
    """Two learners with skills, stats and sessions; a History entry, a token, a failed login."""
    staff_and_skills()
    for username, xp in (("grace", 40), ("ada", 90)):
        User(
            username,
            name=f"{username.title()} Example",
            email=f"{username}@example.com",
            created_at=utcnow() - timedelta(hours=1),  # listed in this month's learners
        ).save()
        UserSkill.for_catalog(username, Skill.get("python"), proficiency="Expert", years=6).save()
        for minutes_ago in (10, 30):
            when = utcnow() - timedelta(minutes=minutes_ago)
            record_session(username, xp=xp, questions=5, correct=4, minutes=12, when=when)
    UserSkill.for_catalog("ada", Skill.get("go"), proficiency="Intermediate", years=2).save()
    AdminLog.record(Skill.get("go"), "change", STAFF_USERNAME, {"name": ["Golang", "Go"]})
    ApiToken.issue(StaffUser.objects.get(username=STAFF_USERNAME), name="Dashboard")
    Group.objects.create(name="Editors")
    attempt = {
        "username": "mallory",
        "ip_address": "127.0.0.1",
        "user_agent": "Chromium",
        "http_accept": "text/html",
        "path_info": "/admin/login/",
    }
    AccessAttempt.objects.create(**attempt, get_data="", post_data="", failures_since_start=1)
    AccessFailureLog.objects.create(**attempt)
    AccessLog.objects.create(**{**attempt, "username": STAFF_USERNAME})
    return live_server.url


class Audit:
    """axe-core's serious and critical findings and the console's errors, page by page."""

    def __init__(self, page, problems: list[str], site: str):
        if not AXE.is_file():
            pytest.fail(f"axe-core is missing ({AXE}): run `make axe-core`.", pytrace=False)
        self.page, self.problems, self.site = page, problems, site
        self.findings: list[str] = []
        self.pages = 0
        # In every page the browser opens, as the browser's own script: the CSP stays as it is.
        page.add_init_script(path=AXE)

    def visit(self, path: str, *, status: int = 200, exclude: tuple[str, ...] = ()) -> None:
        """Open a page by its path and audit it."""
        url = urljoin(self.site, path)
        response = self.page.goto(url)
        if response.status != status:
            self.findings.append(f"{path}: HTTP {response.status}, not {status}")
        elif status != 200:  # the page's own answer, once in each list: what was asked for
            self.problems.remove(f"HTTP {status}: {url}")
            self.problems.remove(f"console: {FAILED_LOAD} {status} ({HTTPStatus(status).phrase})")
        self.check(path, exclude=exclude)

    def check(self, label: str, *, exclude: tuple[str, ...] = ()) -> None:
        """Audit the page as it is now, at each width."""
        self.pages += 1
        for size in WIDTHS:
            self.page.set_viewport_size(size)
            for found in self.page.evaluate(AUDIT, list(exclude)):
                nodes = found["nodes"]
                self.findings.append(
                    f"{label} at {size['width']} px [{found['rule']}] {found['help']}"
                )
                self.findings.extend(f"    {t}: {' '.join(s.split())}" for t, s in nodes[:5])
                if len(nodes) > 5:
                    self.findings.append(f"    … and {len(nodes) - 5} more")
        self.findings.extend(f"{label}: {problem}" for problem in self.problems)
        self.problems.clear()

    def href(self, selector: str) -> str | None:
        """Return where the first link a selector finds on this page goes, or None."""
        link = self.page.locator(selector)
        return urljoin(self.page.url, link.first.get_attribute("href")) if link.count() else None

    def assert_clean(self) -> None:
        assert self.pages and not self.findings, f"{self.pages} pages:\n" + "\n".join(self.findings)


def test_every_public_page_passes_axe_with_no_console_error(browser, site):
    context = browser.new_context()
    page = context.new_page()
    audit = Audit(page, watch(page), site)
    audit.visit("/")
    for metric in ("xp", "streak", "efficiency", "accuracy"):
        audit.visit(f"/leaderboard/?metric={metric}")
    audit.visit("/leaderboard/?metric=xp&user=ada")  # a learner found by username
    audit.visit("/leaderboard/?metric=xp&user=Example")  # a name two learners share
    audit.visit("/skills/search/")
    audit.visit("/skills/search/?skill=Python&level=Expert&min_years=5")
    audit.visit("/skills/search/?skill=Python&min_level=Expert&min_years=200", status=400)
    audit.visit("/learners/ada/")
    audit.visit("/learners/nobody/", status=404)
    audit.visit("/no-such-page/", status=404)
    audit.visit("/admin/login/")
    page.fill("#id_username", "mallory")
    page.fill("#id_password", "wrong")
    with page.expect_navigation():
        page.click("input[type=submit]")
    audit.check("/admin/login/, a wrong password")
    page.goto(urljoin(site, "/api/docs"))
    page.locator(".opblock").first.wait_for()
    audit.check("/api/docs", exclude=("#swagger-ui",))  # what Swagger UI's bundle draws
    context.close()

    audit.assert_clean()


def test_every_public_page_opens_with_a_skip_link_to_its_main_content(browser, site):
    context = browser.new_context()
    page = context.new_page()
    for path in ("/", "/leaderboard/", "/skills/search/", "/learners/ada/", "/no-such-page/"):
        page.goto(urljoin(site, path))
        page.keyboard.press("Tab")  # the keyboard's first stop
        link = page.evaluate("[document.activeElement.textContent, document.activeElement.hash]")
        page.keyboard.press("Enter")
        focused = page.evaluate("document.activeElement.tagName")

        assert link == ["Skip to main content", "#content-start"], path
        assert focused == "MAIN", path
    context.close()


# Whose item pages (History, Stored item, delete, password) and export and import pages are
# audited: the learner (inlines, a cascading delete), a skill (a delete page of its own) and
# a Django user; every listing the index links to, its add page and one change page are.
ITEM_PAGES_OF = ("/admin/users/user/", "/admin/catalog/skill/", "/admin/auth/user/")
ITEM_LINKS = ("a.historylink", "a.viewlink", "a.deletelink", "a[href$='/password/']")
LISTING_LINKS = (".object-tools a.export-link", ".object-tools a.import-link")


def test_every_admin_page_passes_axe_with_no_console_error(browser, site, tmp_path):
    with staff_page(browser, site) as (page, problems):
        audit = Audit(page, problems, site)
        audit.visit("/admin/")
        listings = page.locator("#content-main th[scope=row] a").evaluate_all(
            "links => links.map(link => link.pathname)"
        )
        audit.visit("/admin/catalog/")
        audit.visit("/admin/password_change/")
        for listing in listings:
            audit_model_pages(audit, listing)
        audit_searches_and_filters(audit)
        audit_actions(audit)
        audit_import_preview(audit, tmp_path)
        audit_a_refused_and_a_saved_change(audit)
        audit_tables(audit)

    audit.assert_clean()


def audit_model_pages(audit: Audit, listing: str) -> None:
    """A model's listing, its add page and its first item's page, and the pages they link to."""
    audit.visit(listing)
    linked = [audit.href(".object-tools a.addlink")]
    if listing in ITEM_PAGES_OF:
        linked += [audit.href(selector) for selector in LISTING_LINKS]
    first = audit.href("#result_list tbody a")
    assert first, f"nothing listed on {listing}"
    for url in filter(None, linked):
        audit.visit(url)
    audit.visit(first)
    if listing in ITEM_PAGES_OF:
        for url in filter(None, [audit.href(selector) for selector in ITEM_LINKS]):
            audit.visit(url)


def audit_tables(audit: Audit) -> None:
    """The Tables pages: the list, a table's console with a Query's results, an item."""
    audit.visit("/admin/tables/")
    users = audit.href("#tables th a[href$='-users/']")
    assert users, "the Tables page lists no users table"
    audit.visit(f"{users}?mode=query&pk=ada")
    item = audit.href("#result_list tbody a")
    assert item, "a Query of the users table by ada lists nothing"
    audit.visit(item)


def audit_searches_and_filters(audit: Audit) -> None:
    audit.visit("/admin/users/user/?q=ada")
    audit.visit("/admin/stats/studysession/?q=ada")
    audit.visit("/admin/stats/userstats/?leaderboard=xp@ALL")
    audit.visit("/admin/catalog/skill/?category=Programming")


def choose_action(audit: Audit, listing: str, selected: list[str], action: str) -> None:
    """Select items on a listing and run an action on them; audit the page it answers."""
    page = audit.page
    page.goto(urljoin(audit.site, listing))
    for value in selected:
        page.check(f"input.action-select[value='{value}']")
    page.select_option("select[name=action]", action)
    with page.expect_navigation():
        page.click("button[name=index]")
    audit.check(f"{listing}, the action {action}")


def audit_actions(audit: Audit) -> None:
    page = audit.page
    choose_action(audit, "/admin/catalog/skill/", ["go", "python"], "change_field")
    page.select_option("#id_field", "category")
    with page.expect_navigation():
        page.click("button[value=choose]")
    audit.check("change_field: the value")
    page.select_option("#id_value-category", "Backend")
    with page.expect_navigation():
        page.click("button[value=preview]")
    audit.check("change_field: the preview")
    choose_action(audit, "/admin/catalog/skill/", ["aws"], "delete_selected")
    choose_action(audit, "/admin/stats/userstats/", ["ada"], "record_study_session")
    choose_action(audit, "/admin/stats/userstats/", ["ada"], "correct_xp")


def audit_import_preview(audit: Audit, tmp_path: Path) -> None:
    path = tmp_path / "skills.csv"
    path.write_text("skill_id,name,category\ngo,Go,Backend\nrust,Rust,Programming\nbad id,B,X\n")
    audit.page.goto(urljoin(audit.site, "/admin/catalog/skill/import/"))
    audit.page.set_input_files("#id_file", str(path))
    with audit.page.expect_navigation():
        audit.page.click("input[type=submit][value=Preview]")
    audit.check("the import's preview")


def audit_a_refused_and_a_saved_change(audit: Audit) -> None:
    """A learner's change page with its errors shown, then the listing with its message."""
    page = audit.page
    page.goto(urljoin(audit.site, "/admin/users/user/ada/change/"))
    page.fill("#id_email", "not an address")
    page.fill("#id_userskill-0-years", "99")
    with page.expect_navigation():
        page.click("input[name=_save]")
    audit.check("the learner's change page, refused")
    page.fill("#id_email", "ada@example.com")
    page.fill("#id_userskill-0-years", "7")
    with page.expect_navigation():
        page.click("input[name=_save]")
    audit.check("the learners' listing, after a save")
    if not page.locator("[role=status] > ul.messagelist").count():  # read out as it appears
        audit.findings.append("the learners' listing, after a save: its messages lack role=status")
