"""An article: a page with a summary and a rich-text body, edited in
Wagtail's own editor."""
from django.db import models
from wagtail.admin.panels import FieldPanel
from wagtail.fields import RichTextField
from wagtail.models import Page


class ArticlePage(Page):
    summary = models.CharField(max_length=250, blank=True)
    body = RichTextField(blank=True)

    content_panels = Page.content_panels + [FieldPanel("summary"), FieldPanel("body")]
