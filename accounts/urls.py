from django.urls import include, path

from . import views

urlpatterns = [
    path("signup/", views.signup, name="signup"),
    path("profile/", views.profile, name="profile"),
    path("turn-sound/", views.turn_sound, name="turn_sound"),
    # Django's view with throttling added; the rest of django.contrib.auth.urls as they are.
    path("password_reset/", views.PasswordResetView.as_view(), name="password_reset"),
    path("", include("django.contrib.auth.urls")),
]
