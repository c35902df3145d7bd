"""A small site run by Wagtail, for the browser's tests of a real content
management system: its page tree, its rich-text editor (Draftail), its image
library and its publishing menus are Wagtail's, unchanged."""
import os
import sys

if __name__ == "__main__":
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "cms_conf.settings")
    from django.core.management import execute_from_command_line

    execute_from_command_line(sys.argv)
