import fs from 'node:fs';
import { renderReadme } from '../policies/readme.ts';

// Writes policies/README.md from the policy table (policies/table.test.ts checks it is current).
fs.writeFileSync('policies/README.md', `${renderReadme()}\n`);
