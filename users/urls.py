from django.urls import path

from . import views

app_name = "users"
urlpatterns = [
    path("search/", views.talent_search, name="talent_search"),
]
