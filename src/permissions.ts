// Permission names of api.md section 5 plus rooms:read, rooms:write and
// transcripts:read from operator.md.
export const PERMISSIONS = [
  'rooms:read',
  'rooms:write',
  'rooms:join',
  'calendar:read',
  'calendar:write',
  'voices:read',
  'voices:write',
  'voices:clone',
  'calls:read',
  'calls:dial',
  'numbers:read',
  'usage:read',
  'webhooks:write',
  'events:read',
  'transcripts:read',
] as const;

export type Permission = (typeof PERMISSIONS)[number];

export function isPermission(p: string): p is Permission {
  return (PERMISSIONS as readonly string[]).includes(p);
}
