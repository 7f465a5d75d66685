import { createHash } from 'node:crypto';
import type { Client } from '../db/pool.ts';

// pg-boss's job insert is a large statement that PostgreSQL would otherwise
// parse and plan on every send (the costliest statement of POST /v1/rooms;
// see bench/). Through inTx it runs as a named prepared statement, kept per
// connection and named by a hash of its text, so two texts never share a name;
// PostgreSQL re-plans it by itself when the tables change. pg-boss's texts
// vary only by queue, but to be safe only the first MAX_PREPARED distinct
// texts are prepared (each one costs a little memory on every connection);
// any others run unnamed as before.
const MAX_PREPARED = 64;
const statementNames = new Map<string, string>();

function statementName(text: string): string | undefined {
  let name = statementNames.get(text);
  if (!name && statementNames.size < MAX_PREPARED) {
    name = `pgboss_${createHash('sha256').update(text).digest('hex').slice(0, 32)}`;
    statementNames.set(text, name);
  }
  return name;
}

/** pg-boss options that write the job in the caller's transaction. */
export function inTx(tx: Client) {
  return {
    db: {
      executeSql: (text: string, values?: unknown[]) => {
        const name = values && values.length > 0 ? statementName(text) : undefined;
        return name ? tx.query({ name, text, values }) : tx.query(text, values as unknown[]);
      },
    },
  };
}
