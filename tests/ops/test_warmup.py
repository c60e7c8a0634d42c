"""The web process compiles its templates before gunicorn forks the workers (portal.warmup)."""

from pathlib import Path

from django.conf import settings
from django.template import engines


def test_every_template_is_compiled_into_the_cached_loader():
    from portal.warmup import load_templates

    assert not settings.DEBUG
    engine = engines["django"].engine
    cached = engine.template_loaders[0]
    assert type(cached).__name__ == "Loader" and "cached" in type(cached).__module__
    cached.reset()
    files = list(Path(settings.BASE_DIR, "templates").rglob("*.html"))
    assert load_templates() == len(files) > 100
    assert {"base.html", "public/verify.html"} <= {key.split(":")[0] for key in cached.get_template_cache}


def test_nothing_is_kept_with_debug_on(settings):
    from portal.warmup import load_templates

    settings.DEBUG = True
    assert load_templates() == 0


def test_the_wsgi_module_warms_the_process(monkeypatch):
    import importlib

    import portal.warmup

    called = []
    monkeypatch.setattr(portal.warmup, "warm_web_process", lambda: called.append(1))
    import portal.wsgi

    called.clear()  # a first import here has already warmed once
    importlib.reload(portal.wsgi)
    assert called == [1]
