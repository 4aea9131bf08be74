from django.contrib.auth import views as auth_views
from django.urls import path, reverse_lazy

from . import views

app_name = "accounts"

urlpatterns = [
    path("registrati/", views.signup, name="signup"),
    path("accedi/", auth_views.LoginView.as_view(redirect_authenticated_user=True), name="login"),
    path("esci/", auth_views.LogoutView.as_view(), name="logout"),
    path("impostazioni/", views.account_settings, name="settings"),
    path("impostazioni/email/", views.email_change, name="email_change"),
    path("impostazioni/email/conferma/<str:token>/", views.email_confirm, name="email_confirm"),
    path("impostazioni/elimina/", views.account_delete, name="delete"),
    path(
        "password/",
        auth_views.PasswordChangeView.as_view(success_url=reverse_lazy("accounts:password_change_done")),
        name="password_change",
    ),
    path("password/fatto/", auth_views.PasswordChangeDoneView.as_view(), name="password_change_done"),
    path(
        "password/reset/",
        auth_views.PasswordResetView.as_view(
            success_url=reverse_lazy("accounts:password_reset_done"),
            email_template_name="registration/password_reset_email.txt",
            subject_template_name="registration/password_reset_subject.txt",
        ),
        name="password_reset",
    ),
    path("password/reset/inviata/", auth_views.PasswordResetDoneView.as_view(), name="password_reset_done"),
    path(
        "password/reset/<uidb64>/<token>/",
        auth_views.PasswordResetConfirmView.as_view(success_url=reverse_lazy("accounts:password_reset_complete")),
        name="password_reset_confirm",
    ),
    path("password/reset/completato/", auth_views.PasswordResetCompleteView.as_view(), name="password_reset_complete"),
]
