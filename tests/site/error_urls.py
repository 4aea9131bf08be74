"""The site's URLs plus a page that always fails, to see the 500 page as a visitor would."""

from django.urls import path

from burraco_site.urls import urlpatterns as site_urlpatterns


def broken(request):
    raise RuntimeError("a page that fails on purpose")


urlpatterns = [path("rotta/", broken), *site_urlpatterns]
