"""Account pages: thin views over the services and selectors."""

from axes.helpers import get_client_ip_address
from django.conf import settings
from django.contrib import messages
from django.contrib.auth import login, logout
from django.contrib.auth.decorators import login_required
from django.core.exceptions import ValidationError
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_http_methods, require_POST
from django.views.i18n import set_language

from . import services
from .forms import DeleteAccountForm, EmailChangeForm, LanguageForm, SignupForm
from .selectors import is_deleted_name, profile_user


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
    if is_deleted_name(username):  # the name games show for a deleted account: say so
        return render(request, "accounts/deleted_profile.html", status=410)
    player = profile_user(username)
    return render(request, "accounts/profile.html", {"player": player})


def _render_settings(request, *, form=None, email_form=None, delete_form=None, status=200):
    user = request.user
    return render(request, "accounts/settings.html", {
        "form": form or LanguageForm(initial={"language": user.language, "sound_on": user.sound_on,
                                              "client_seed": user.client_seed}),
        "email_form": email_form or EmailChangeForm(),
        "delete_form": delete_form or DeleteAccountForm(),
    }, status=status)


@login_required
@require_http_methods(["GET", "POST"])
def account_settings(request):
    if request.method == "GET":
        return _render_settings(request)
    form = LanguageForm(request.POST)
    if not form.is_valid():
        return _render_settings(request, form=form)
    language = form.cleaned_data["language"]
    services.user_set_preferences(user=request.user, language=language, sound_on=form.cleaned_data["sound_on"],
                                  client_seed=form.cleaned_data["client_seed"])
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


@login_required
@require_POST
def email_change(request):
    form = EmailChangeForm(request.POST)
    if form.is_valid():
        try:
            sent_to = services.email_change_request(
                user=request.user, password=form.cleaned_data["password"], new_email=form.cleaned_data["new_email"],
                link_for=lambda token: request.build_absolute_uri(reverse("accounts:email_confirm", args=[token])),
            )
        except services.AccountError as exc:
            form.add_error(None, exc.message)
        else:
            messages.success(request, _("Ti abbiamo scritto a %(email)s: apri il link del messaggio per confermare il "
                                        "nuovo indirizzo. Fino ad allora resta quello di prima.") % {"email": sent_to})
            return redirect("accounts:settings")
    return _render_settings(request, email_form=form, status=400)


@login_required
@require_GET
def email_confirm(request, token: str):
    try:
        user = services.email_change_confirm(user=request.user, token=token)
    except services.AccountError as exc:
        messages.error(request, exc.message)
    else:
        messages.success(request, _("Fatto: il tuo indirizzo e-mail ora è %(email)s.") % {"email": user.email})
    return redirect("accounts:settings")


@login_required
@require_POST
def account_delete(request):
    form = DeleteAccountForm(request.POST)
    if form.is_valid():
        try:
            services.user_delete(user=request.user, password=form.cleaned_data["password"])
        except services.AccountError as exc:
            form.add_error(None, exc.message)
        else:
            logout(request)
            messages.success(request, _("Il tuo account è stato eliminato. Le partite giocate restano nello storico "
                                        "a nome «giocatore eliminato». Grazie di aver giocato."))
            return redirect("home")
    return _render_settings(request, delete_form=form, status=400)


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
