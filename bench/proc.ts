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
