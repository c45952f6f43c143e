"""Where the API and the web UI live: Camunda's engine-rest base path, flowledger's extension
prefix, the sign-in session and the UI's pages and assets.

Constants only, so that resources can build links without importing the application that
imports them.
"""

BASE_PATH = "/engine-rest"
EXTENSIONS_PATH = "/flowledger/v1"
SESSION_PATH = f"{EXTENSIONS_PATH}/session"
# The single-page app's own routes: each answers its index.html (rest/ui.py).
UI_PAGES = ("/", "/login", "/cockpit", "/tasklist")
UI_ASSETS_PATH = "/ui"
# Below these, every path is the UI's too: deep links into the app, and the bundle's files.
UI_PAGE_PREFIXES = ("/cockpit/", "/tasklist/", f"{UI_ASSETS_PATH}/")
