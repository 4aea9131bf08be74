from django.contrib import admin
from django.urls import include, path
from django.views.generic import TemplateView

from accounts import views as accounts_views

urlpatterns = [
    path("", TemplateView.as_view(template_name="home.html"), name="home"),
    path("account/", include("accounts.urls")),
    # path, not str: a name stored before today's username rule may hold "/" and must still link.
    path("giocatori/<path:username>/", accounts_views.profile, name="profile"),
    path("i18n/", include("django.conf.urls.i18n")),
    path("admin/", admin.site.urls),
    path("", include("games.urls")),
]
