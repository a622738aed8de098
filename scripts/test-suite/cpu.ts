/**
 * CPU seconds of processes, read from Linux's /proc: what the suite's ledger counts.
 *
 * A process's `cutime`/`cstime` hold the CPU of every descendant it has waited for (the kernel adds a
 * reaped child's own and its reaped children's times to its parent), so a shell that runs a command,
 * waits for it and then reads its own /proc/<pid>/stat has the CPU of the command's whole process
 * tree: its servers, its tsc, its npm. That is how `spawnMeasured` measures a test file or a check.
 * A descendant still running when the tree ends (orphaned, reparented to init) is not counted.
 */
import { execFileSync, spawn, type ChildProcess, type SpawnOptions } from 'node:child_process';
import fs from 'node:fs';

let ticksPerSecond: number | undefined;
export function clockTicks(): number {
  if (ticksPerSecond === undefined) {
    try {
      ticksPerSecond = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
    } catch {
      ticksPerSecond = 100;
    }
  }
  return ticksPerSecond;
}

interface StatTimes {
  /** user + system of the process itself, in seconds. */
  self: number;
  /** user + system of the children it has waited for, in seconds. */
  children: number;
  ppid: number;
}

/** The times of one /proc/<pid>/stat line (its `comm` may hold spaces and parentheses). */
function parseStat(line: string): StatTimes {
  const fields = line.slice(line.lastIndexOf(')') + 2).split(' ');
  // Fields after `comm`, from 0: state, ppid, … utime (11), stime (12), cutime (13), cstime (14).
  const tick = (i: number) => Number(fields[i]) / clockTicks();
  return { self: tick(11) + tick(12), children: tick(13) + tick(14), ppid: Number(fields[1]) };
}

function statOf(pid: number): StatTimes | undefined {
  try {
    return parseStat(fs.readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return undefined;
  }
}

/**
 * CPU seconds of a running process's tree: itself, the children it reaped and every live descendant
 * with the children they reaped (a server's exited backends are in its `children`).
 */
export function treeCpuSeconds(pid: number): number {
  const all = fs
    .readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .map((name) => ({ pid: Number(name), stat: statOf(Number(name)) }));
  const childrenOf = new Map<number, number[]>();
  for (const p of all) if (p.stat) childrenOf.set(p.stat.ppid, [...(childrenOf.get(p.stat.ppid) ?? []), p.pid]);
  const stats = new Map(all.map((p) => [p.pid, p.stat]));
  let total = 0;
  const visit = (at: number) => {
    const stat = stats.get(at);
    if (stat) total += stat.self + stat.children;
    for (const child of childrenOf.get(at) ?? []) visit(child);
  };
  visit(pid);
  return total;
}

/** CPU seconds of this process and the children it has reaped (builds, `npx tap build`). */
export function ownCpuSeconds(): number {
  const stat = statOf(process.pid);
  return stat ? stat.self + stat.children : 0;
}

interface MeasuredChild {
  child: ChildProcess;
  /**
   * CPU seconds of the command's whole tree once it has ended; undefined when the tree was killed
   * (the shell that reads them is then gone too).
   */
  cpuSeconds: Promise<number | undefined>;
  /** Kills the command and everything it started (its process group). */
  killTree: () => void;
}

const live = new Set<number>();
process.on('exit', () => {
  for (const pid of live) killGroup(pid);
});

function killGroup(pid: number): void {
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    // Already gone.
  }
}

/**
 * Spawns `command` under a shell that waits for it and then writes its own /proc stat line to fd 3,
 * so the command's whole tree is measured; the command itself does not see fd 3. The shell leads a
 * process group of its own, so that a time-out kills every process the command started.
 */
export function spawnMeasured(command: string, args: string[], options: Omit<SpawnOptions, 'stdio' | 'detached'>): MeasuredChild {
  const script = '"$@" 3>&-; status=$?; cat /proc/$$/stat >&3; exit $status';
  const child = spawn('/bin/sh', ['-c', script, 'sh', command, ...args], {
    ...options,
    stdio: ['ignore', 'pipe', 'pipe', 'pipe'],
    detached: true,
  });
  const pid = child.pid;
  if (pid) live.add(pid);
  const chunks: Buffer[] = [];
  child.stdio[3]!.on('data', (chunk: Buffer) => chunks.push(chunk));
  const cpuSeconds = new Promise<number | undefined>((resolve) =>
    child.on('close', () => {
      if (pid) live.delete(pid);
      const line = Buffer.concat(chunks).toString().trim();
      if (!line) return resolve(undefined);
      const stat = parseStat(line);
      resolve(stat.self + stat.children);
    }),
  );
  return { child, cpuSeconds, killTree: () => pid && killGroup(pid) };
}
