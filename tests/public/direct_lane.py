"""What the tests of the page cache's direct lane compare: the same request through the whole
stack (the page cache out of the way), and the headers both answers must share."""

NOT_COMPARED = {"date", "x-public-cache"}


def through_the_stack(client, settings, path, **headers):
    """The same request through the whole stack (the page cache out of the way)."""
    settings.PUBLIC_PAGE_CACHE = False
    try:
        return client.get(path, **headers)
    finally:
        settings.PUBLIC_PAGE_CACHE = True


def compared_headers(response) -> dict:
    return {k.lower(): v for k, v in response.items() if k.lower() not in NOT_COMPARED}
