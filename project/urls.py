from django.contrib import admin
from django.urls import include, path

from . import views

urlpatterns = [
    path("", views.home, name="home"),
    path("healthz", views.healthz, name="healthz"),
    path("admin/", admin.site.urls),
    path("leaderboard/", include("stats.urls")),
    path("skills/", include("users.urls")),
    path("api/", include("api.urls")),
]

handler400 = "project.errors.bad_request"
