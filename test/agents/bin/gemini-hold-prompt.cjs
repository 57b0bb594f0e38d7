// A Gemini CLI BeforeAgent hook of the race test's own (test/agents/gemini.test.ts), standing for
// any slow hook: it holds a prompt that names HOLD until the project folder holds `.release`
// (at most 100 s), and says it holds it with `.held`. Meanwhile the session's chat file holds no
// turn, and another session's start-up cleanup deletes it (docs/gemini-session-race.md).
const fs = require('node:fs');
const path = require('node:path');

let text = '';
process.stdin.setEncoding('utf8');
process.stdin.on('data', (chunk) => (text += chunk));
process.stdin.on('end', () => {
  const input = JSON.parse(text);
  if (typeof input.prompt !== 'string' || !input.prompt.includes('HOLD')) return answer();
  const folder = input.cwd;
  fs.writeFileSync(path.join(folder, '.held'), '');
  const until = Date.now() + 100_000;
  const wait = () => (fs.existsSync(path.join(folder, '.release')) || Date.now() > until ? answer() : setTimeout(wait, 50));
  wait();
});

function answer() {
  process.stdout.write('{}\n');
}
