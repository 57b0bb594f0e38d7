// The least a start answered from a kept block must do, written plainly in Node, as a hook command
// for `npm run bench agents` (test/agents/startupCost.ts): read the agent's input, stamp the
// store's and git's files, run `git status`, read the kept block and the agent sessions, write one
// record durably (a temporary file, fsynced, renamed), and answer `{}`. It answers nothing useful;
// it shows what any correct start costs in Node over the bare-node floor, so that what our hook
// costs beyond it is known to be ours.
'use strict';
const childProcess = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const chunks = [];
process.stdin.on('data', (chunk) => chunks.push(chunk));
process.stdin.on('end', () => {
  let input = {};
  try {
    input = JSON.parse(Buffer.concat(chunks).toString('utf8'));
  } catch {
    // No usable input: the folder the agent started the hook in.
  }
  void answer(typeof input.cwd === 'string' ? input.cwd : process.cwd());
});

async function answer(cwd) {
  const stamp = (file) => fs.promises.stat(path.join(cwd, file)).catch(() => undefined);
  const read = (file) => fs.promises.readFile(path.join(cwd, file), 'utf8').catch(() => '{}');
  const status = new Promise((resolve) => {
    const git = childProcess.spawn('git', ['status', '--porcelain=v1', '-z'], { cwd, stdio: ['ignore', 'pipe', 'ignore'] });
    const out = [];
    git.stdout.on('data', (chunk) => out.push(chunk));
    git.on('error', () => resolve(''));
    git.on('close', () => resolve(Buffer.concat(out).toString('utf8')));
  });
  const [uncommitted, , , , , block, sessions] = await Promise.all([
    status,
    stamp('.beads/issues.jsonl'),
    stamp('.beads/beads.db'),
    stamp('.git/HEAD'),
    stamp('.git/index'),
    read('.git/beads-recovery/start-block.json'),
    read('.git/beads-recovery/sessions.json'),
  ]);
  JSON.parse(block);
  const record = path.join(cwd, '.git', 'least-start-record.json');
  const temporary = `${record}.${process.pid}.tmp`;
  const handle = await fs.promises.open(temporary, 'w');
  await handle.writeFile(JSON.stringify({ sessions: JSON.parse(sessions), uncommitted }));
  await handle.sync();
  await handle.close();
  await fs.promises.rename(temporary, record);
  process.stdout.write('{}');
}
