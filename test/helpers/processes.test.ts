import { describe, expect, it } from 'vitest';
import { runProcess } from './processes.js';

// The suite's child processes run through this helper; a hang here would hang a whole test file.
describe('runProcess', () => {
  it('answers with the status, both outputs and what was written to the input', async () => {
    const script = "process.stdin.pipe(process.stdout); process.stderr.write('ü'); process.stdin.on('end', () => process.exit(3))";
    const result = await runProcess(process.execPath, ['-e', script], { env: {}, input: 'hello\n', timeoutMs: 10_000 });
    expect(result).toEqual({ status: 3, stdout: 'hello\n', stderr: 'ü' });
  });

  it('stops a program and the children holding its output at the time limit, saying so', async () => {
    // The parent starts a child that inherits the output pipes, prints, and then both wait forever.
    const script =
      "const { spawn } = require('node:child_process');" +
      "const child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'inherit' });" +
      "console.log(child.pid); setInterval(() => {}, 1000);";
    const started = Date.now();
    const result = await runProcess(process.execPath, ['-e', script], { env: {}, timeoutMs: 1_500 });
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(result.status).toBeNull();
    expect(result.stderr).toContain('stopped after 1500 ms');
    const grandchild = Number(result.stdout.trim());
    expect(grandchild).toBeGreaterThan(0);
    // The grandchild went with its group.
    await expect.poll(() => {
      try {
        process.kill(grandchild, 0);
        return 'running';
      } catch {
        return 'gone';
      }
    }, { timeout: 5_000 }).toBe('gone');
  });
});
