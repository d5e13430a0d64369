"""The results site's Jinja templates and static files: installed as the package
``runner.site_templates`` (pyproject.toml), read through runner/common/resources.py."""
