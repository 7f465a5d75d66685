import fs from 'node:fs';

/** CPU seconds (user + system) of the given processes, from /proc (Linux); null elsewhere. */
export function procCpu(pids: number[]): number | null {
  if (!fs.existsSync('/proc/self/stat')) return null;
  let ticks = 0;
  for (const pid of pids) {
    let stat: string;
    try {
      stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    } catch {
      continue; // gone
    }
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    ticks += Number(f[11]) + Number(f[12]); // utime, stime (fields 14, 15)
  }
  return ticks / 100; // USER_HZ is 100 on Linux
}

/** CPU seconds (user + system) of each of the given processes still running, from /proc (Linux); empty elsewhere. */
export function procCpuEach(pids: number[]): Map<number, number> {
  const out = new Map<number, number>();
  for (const pid of pids) {
    const s = procCpu([pid]);
    if (s !== null && fs.existsSync(`/proc/${pid}`)) out.set(pid, s);
  }
  return out;
}

/** CPU seconds spent between two procCpuEach readings by the processes in both (one gone meanwhile is left out, not counted negative). */
export function procCpuSpent(before: Map<number, number>, after: Map<number, number>): number {
  let s = 0;
  for (const [pid, t] of after) {
    const b = before.get(pid);
    if (b !== undefined) s += t - b;
  }
  return s;
}
