// The nested-keys scenario the thread tests share (./thread.test.ts, ./opencodeThread.test.ts): its
// project, the question the agent asks, and the parser it writes, which makes the project's tests pass.
import path from 'node:path';
import { REPO } from './harness';

export const NESTED_KEYS_PROJECT = path.join(REPO, 'test', 'agents', 'projects', 'nested-keys');
export const NESTED_KEYS_QUESTION = 'Nested keys of two levels now parse. Should deeper keys like a.b.c.d be rejected or flattened?';
export const NESTED_PARSER = `"""A tiny config parser: one \`key = value\` per line; dotted keys nest."""


def parse(text):
    config = {}
    for line in text.splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        key, _, value = line.partition("=")
        *parents, leaf = key.strip().split(".")
        node = config
        for part in parents[:1]:
            node = node.setdefault(part, {})
        node[leaf] = value.strip()
    return config


def get(config, dotted):
    node = config
    for part in dotted.split("."):
        node = node[part]
    return node
`;
