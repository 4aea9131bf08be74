from django.contrib import admin
from django.shortcuts import redirect
from django.templatetags.static import static
from django.urls import include, path

from accounts import views as accounts_views
from games.views import home as home_views

urlpatterns = [
    path("", home_views.home, name="home"),
    path("account/", include("accounts.urls")),
    # path, not str: a name stored before today's username rule may hold "/" and must still link.
    path("giocatori/<path:username>/", accounts_views.profile, name="profile"),
    # The footer's IT/EN switch: Django's set_language, which also saves a signed-in player's choice.
    path("i18n/setlang/", accounts_views.switch_language, name="set_language"),
    # Browsers ask for /favicon.ico on their own; resolved per request (the static manifest may
    # not exist when the URLs are imported).
    path("favicon.ico", lambda request: redirect(static("favicon.svg"), permanent=True)),
    path("admin/", admin.site.urls),
    path("", include("games.urls")),
]
