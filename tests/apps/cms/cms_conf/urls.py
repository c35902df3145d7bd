from django.conf import settings
from django.conf.urls.static import static
from django.urls import include, path
from wagtail import urls as wagtail_urls
from wagtail.admin import urls as wagtailadmin_urls

urlpatterns = [
    path("admin/", include(wagtailadmin_urls)),
    *static(settings.MEDIA_URL, document_root=settings.MEDIA_ROOT),
    path("", include(wagtail_urls)),
]
