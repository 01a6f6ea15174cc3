"""Keys and the logs, on the real parts: Debian's nginx running deploy/nginx.conf in front of a real `streamlit run`,
driven by Chromium. A teacher link and a learner's own link go through it; its access log names every request by
its path and never holds a key; the teacher's cookie lasts no longer than the class."""

from __future__ import annotations

import time

import pytest
from playwright.sync_api import expect

import store
from bench import replicas
from tests.helpers import BROWSER_WAIT as WAIT
from tests.helpers import assert_no_exception, browser_cookie, goto

pytestmark = pytest.mark.browser


@pytest.fixture
def through_nginx(streamlit_server):
    if replicas.nginx_binary() is None:
        pytest.skip("nginx is not installed (Debian: apt-get install nginx)")
    with replicas.nginx([streamlit_server.removeprefix("http://")]) as (url, access_log):
        yield url, access_log


def test_no_key_reaches_nginxs_log_and_the_teachers_cookie_ends_with_the_class(page, through_nginx):
    url, access_log = through_nginx
    classes, learners = store.open_store()
    info, key = classes.create_class("logs", hours=2)
    learner = learners.new_key()

    goto(page, f"{url}/classroom?class={info.code}&teacher={key}")
    expect(page.get_by_text("Here now")).to_be_visible(timeout=WAIT)
    assert "teacher=" not in page.url  # out of the address bar at once
    browser_cookie(page.context, "attention_lab_teacher")  # written by a script just after the dashboard's text
    page.reload()
    page.wait_for_selector("[data-testid=stApp][data-test-script-state=notRunning]", timeout=WAIT)
    expect(page.get_by_text("Here now")).to_be_visible(timeout=WAIT)  # the cookie brought the dashboard back
    cookie = next(c for c in page.context.cookies() if c["name"] == "attention_lab_teacher")
    assert time.time() < cookie["expires"] <= info.expires_at + 5  # no longer than the class
    assert not cookie["httpOnly"]  # a page script wrote it: Streamlit gives a script no other way

    goto(page, f"{url}/scaling?learner={learner}")  # a learner who keeps their key in their link
    goto(page, f"{url}/?learner={learner}")
    assert_no_exception(page)

    logged = access_log.read_text()
    assert "GET /classroom HTTP/1.1" in logged and "GET /scaling HTTP/1.1" in logged
    assert key not in logged and learner not in logged and "teacher=" not in logged and "learner=" not in logged
