"""Where the API lives: Camunda's engine-rest base path and flowledger's extension prefix.

Constants only, so that resources can build links without importing the application that
imports them.
"""

BASE_PATH = "/engine-rest"
EXTENSIONS_PATH = "/flowledger/v1"
