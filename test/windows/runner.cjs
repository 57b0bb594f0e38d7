// Runs in Wine, under the Windows build of node: starts one program the way an agent's runner does
// on Windows, with the environment a Windows user has (USERPROFILE, LOCALAPPDATA, which Wine would
// otherwise set to its own), and writes what it did as JSON. Node's argument quoting (libuv's
// quote_cmd_arg) is the MSVC convention Rust's Command::arg also follows: an argument with a space
// or a quote is wrapped in quotes and each `"` in it becomes `\"`.
// Usage: node.exe runner.cjs <job.json> <result.json>; job: { program, args, env, stdin, cwd }.
const { spawnSync } = require('node:child_process');
const { readFileSync, writeFileSync } = require('node:fs');

const job = JSON.parse(readFileSync(process.argv[2], 'utf8'));
const result = spawnSync(job.program, job.args, { env: { ...process.env, ...job.env }, input: job.stdin, cwd: job.cwd, encoding: 'utf8', timeout: 30_000 });
writeFileSync(process.argv[3], JSON.stringify({ status: result.status, stdout: result.stdout, stderr: result.stderr, error: result.error ? String(result.error) : undefined }));
