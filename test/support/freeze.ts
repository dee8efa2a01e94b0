// Freezes a server and every process under it (SIGSTOP), and thaws it (SIGCONT): the worst outage a
// client meets, connections open and nothing answering, then the same server back as it was.
import { execFileSync } from 'node:child_process';

function tree(root: number): number[] {
  const rows = execFileSync('ps', ['-eo', 'pid=,ppid='], { encoding: 'utf8' })
    .trim()
    .split('\n')
    .map((line) => line.trim().split(/\s+/).map(Number));
  const found = [root];
  for (let i = 0; i < found.length; i++) for (const [pid, parent] of rows) if (parent === found[i]) found.push(pid);
  return found;
}

export function freeze(pid: number): void {
  for (const each of tree(pid)) signal(each, 'SIGSTOP');
}

export function thaw(pid: number): void {
  for (const each of tree(pid)) signal(each, 'SIGCONT');
}

/** A process of the tree may end meanwhile (a backend whose client left): nothing to signal then. */
function signal(pid: number, name: NodeJS.Signals): void {
  try {
    process.kill(pid, name);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ESRCH') throw error;
  }
}
