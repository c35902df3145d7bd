from django.db import models


class Book(models.Model):
    GENRES = [("novel", "Novel"), ("poetry", "Poetry"), ("history", "History")]

    title = models.CharField(max_length=200)
    author = models.CharField(max_length=200)
    genre = models.CharField(max_length=20, choices=GENRES, default="novel")
    published = models.DateField(null=True, blank=True)
    notes = models.TextField(blank=True)

    def __str__(self):
        return self.title
