"""Account pages: thin views over the services and selectors."""

from axes.helpers import get_client_ip_address
from django.conf import settings
from django.contrib import messages
from django.contrib.auth import login
from django.contrib.auth.decorators import login_required
from django.core.exceptions import ValidationError
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods, require_POST
from django.views.i18n import set_language

from . import services
from .forms import LanguageForm, SignupForm
from .selectors import profile_user


def _signup_limited(request, cap: services.SignupCap):
    minutes = max(1, -(-cap.retry_after_seconds // 60))
    response = render(request, "accounts/signup_limited.html", {"limit": cap.limit, "minutes": minutes}, status=429)
    response["Retry-After"] = str(cap.retry_after_seconds)
    return response


@require_http_methods(["GET", "POST"])
def signup(request):
    if request.user.is_authenticated:
        return redirect("home")
    address = get_client_ip_address(request)  # the same address django-axes locks log-ins by
    if request.method == "POST":
        cap = services.signup_cap(address)
        if not cap.allowed:
            return _signup_limited(request, cap)
    form = SignupForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        cap = services.signup_take_slot(address)
        if not cap.allowed:
            return _signup_limited(request, cap)
        try:
            user = services.user_create(
                username=form.cleaned_data["username"],
                email=form.cleaned_data["email"],
                password=form.cleaned_data["password1"],
                language=request.LANGUAGE_CODE if request.LANGUAGE_CODE in ("it", "en") else "it",
            )
        except ValidationError as error:  # a race with another sign-up
            services.signup_release_slot(address)
            form.add_error(None, error)
        else:
            login(request, user, backend="django.contrib.auth.backends.ModelBackend")
            messages.success(request, _("Benvenuto, %(name)s! Il tuo account è pronto.") % {"name": user.username})
            return redirect("home")
    return render(request, "accounts/signup.html", {"form": form})


def profile(request, username):
    player = profile_user(username)
    return render(request, "accounts/profile.html", {"player": player})


@login_required
@require_http_methods(["GET", "POST"])
def account_settings(request):
    form = LanguageForm(request.POST or None, initial={"language": request.user.language})
    if request.method == "POST" and form.is_valid():
        language = form.cleaned_data["language"]
        services.user_set_language(user=request.user, language=language)
        response = redirect("accounts:settings")
        # The cookie keeps the choice after log-out on this device too.
        response.set_cookie(
            settings.LANGUAGE_COOKIE_NAME,
            language,
            max_age=365 * 24 * 3600,
            samesite="Lax",
            secure=settings.LANGUAGE_COOKIE_SECURE,
        )
        from django.utils import translation

        with translation.override(language):
            messages.success(request, _("Impostazioni salvate."))
        return response
    return render(request, "accounts/settings.html", {"form": form})


@require_POST
def switch_language(request):
    """The footer's language switch. For a signed-in player the saved language wins on every
    request (accounts.middleware), so the choice is saved on the account too, or the switch
    would do nothing; then Django's own view sets the cookie and goes back to `next`."""
    language = request.POST.get("language")
    if request.user.is_authenticated and language in dict(settings.LANGUAGES) and language != request.user.language:
        services.user_set_language(user=request.user, language=language)
    return set_language(request)


def csrf_failure(request, reason=""):
    return render(request, "403_csrf.html", status=403)


def locked_out(request, original_response=None, credentials=None):
    """django-axes answer to a locked-out log-in: a page that says why and for how long."""
    minutes = max(1, int(settings.AXES_COOLOFF_TIME.total_seconds() // 60))
    return render(request, "accounts/locked_out.html", {"cooloff_minutes": minutes}, status=429)
