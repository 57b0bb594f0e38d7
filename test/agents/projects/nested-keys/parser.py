"""A tiny config parser: one `key = value` per line."""


def parse(text):
    config = {}
    for line in text.splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        key, _, value = line.partition("=")
        config[key.strip()] = value.strip()
    return config


def get(config, dotted):
    node = config
    for part in dotted.split("."):
        node = node[part]
    return node
