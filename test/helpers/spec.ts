import fs from 'node:fs';

// api.md, the public interface this service implements, carried in the
// repository (test/spec/api.md, a verbatim copy) so that every checkout tests
// against it: the operations, the error codes and the event types the tests
// read from it. When api.md changes, the copy is replaced with it.

export const SPEC_FILE = new URL('../spec/api.md', import.meta.url);

export function specText(): string {
  return fs.readFileSync(SPEC_FILE, 'utf8');
}
