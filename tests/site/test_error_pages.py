"""The site's own 404 and 500 pages: Italian, translated, and the 500 one free of anything that
could fail again (no session, user, URL reversing or static manifest)."""

from __future__ import annotations

import pytest
from django.test import Client, RequestFactory, override_settings
from django.utils import translation
from django.views import defaults

pytestmark = pytest.mark.django_db


@pytest.fixture
def visitor() -> Client:
    return Client(raise_request_exception=False)


@override_settings(DEBUG=False)
def test_missing_page_gets_the_italian_404_with_the_site_around_it(visitor):
    response = visitor.get("/non-esiste/")
    assert response.status_code == 404
    text = response.content.decode()
    assert "Pagina non trovata" in text
    assert 'id="not-found"' in text
    assert 'href="/gioca/"' in text and 'id="nav-login"' in text  # base.html navigation
    assert "Not Found" not in text  # not Django's bare default


@override_settings(DEBUG=False)
def test_a_missing_object_also_gets_the_404_page(visitor):
    response = visitor.get("/giocatori/nessuno/")
    assert response.status_code == 404
    assert "Pagina non trovata" in response.content.decode()


@override_settings(DEBUG=False)
def test_404_in_english(visitor):
    visitor.cookies.load({"django_language": "en"})
    response = visitor.get("/non-esiste/")
    assert response.status_code == 404
    assert "Page not found" in response.content.decode()


@override_settings(DEBUG=False, ROOT_URLCONF="tests.site.error_urls")
def test_a_failing_page_gets_the_italian_500(visitor):
    response = visitor.get("/rotta/")
    assert response.status_code == 500
    text = response.content.decode()
    assert "Si è verificato un errore" in text
    assert "a page that fails on purpose" not in text  # no detail leaks to the visitor
    assert "Traceback" not in text


@override_settings(DEBUG=False, ROOT_URLCONF="tests.site.error_urls")
def test_500_in_english(visitor):
    visitor.cookies.load({"django_language": "en"})
    response = visitor.get("/rotta/")
    assert response.status_code == 500
    assert "Something went wrong" in response.content.decode()


def test_500_renders_with_a_bare_request_and_no_database(django_db_blocker):
    """The handler itself: a request with no session, no user and the database blocked still
    gets the page (the template must not reach for any of them)."""
    request = RequestFactory().get("/rotta/")
    assert not hasattr(request, "user") and not hasattr(request, "session")
    with django_db_blocker.block(), translation.override("it"):
        response = defaults.server_error(request)
    assert response.status_code == 500
    assert "Si è verificato un errore" in response.content.decode()


@override_settings(STORAGES={
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.ManifestStaticFilesStorage"},
})
def test_500_needs_no_static_manifest():
    """With DEBUG off the static tag needs collectstatic's manifest; the 500 page must not use it."""
    response = defaults.server_error(RequestFactory().get("/"))
    assert response.status_code == 500
    assert "/static/" not in response.content.decode()
