"""A small library run by Django's own admin, for the browser's tests of a
real application: the admin's forms, search, filters, actions and
confirmation pages are Django's, unchanged."""
import os
import sys

if __name__ == "__main__":
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "site_conf.settings")
    from django.core.management import execute_from_command_line

    execute_from_command_line(sys.argv)
