from django.contrib import admin
from django.contrib.auth.admin import UserAdmin as BaseUserAdmin
from django.contrib.auth.forms import AdminUserCreationForm

from . import services
from .models import User


class UserCreationForm(AdminUserCreationForm):
    """A player added by hand follows the same username rule as one who signs up."""

    def clean_username(self):
        return services.check_new_username(self.cleaned_data.get("username") or "")


@admin.register(User)
class UserAdmin(BaseUserAdmin):
    add_form = UserCreationForm
    fieldsets = BaseUserAdmin.fieldsets + ((None, {"fields": ("language", "sound_on", "deleted_at")}),)
    list_display = ("username", "email", "language", "date_joined", "is_staff")
