import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

// The trunks' passwords at rest: AES-256-GCM under TOLK_SECRET_KEY (32 bytes),
// a fresh 96-bit IV each time, the trunk's id as associated data (a
// ciphertext copied onto another trunk's row does not decrypt). Stored as
// `v1.` + base64url(IV | tag | ciphertext). A wrong key or a tampered value
// fails the tag check: SecretKeyError, never a crash.

const VERSION = 'v1.';

/** Why a stored password cannot be read (no key, a wrong key, a damaged value): the message says what to do. */
export class SecretKeyError extends Error {
  override name = 'SecretKeyError';
}

export function encryptSecret(key: Buffer | undefined, plain: string, boundTo: string): string {
  if (!key) throw new SecretKeyError('TOLK_SECRET_KEY is not set: a trunk password is stored encrypted with it (32 random bytes as 64 hex characters, e.g. openssl rand -hex 32)');
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(Buffer.from(boundTo, 'utf8'));
  const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
  return VERSION + Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64url');
}

export function decryptSecret(key: Buffer | undefined, stored: string, boundTo: string): string {
  if (!key) throw new SecretKeyError(`TOLK_SECRET_KEY is not set, and trunk ${boundTo} has a password encrypted with it: set the key it was stored with`);
  const raw = stored.startsWith(VERSION) ? Buffer.from(stored.slice(VERSION.length), 'base64url') : Buffer.alloc(0);
  if (raw.length < 28) throw new SecretKeyError(`the password of trunk ${boundTo} is not a value this version stores: set it again with tolk trunk remove and tolk trunk add`);
  try {
    const decipher = createDecipheriv('aes-256-gcm', key, raw.subarray(0, 12));
    decipher.setAAD(Buffer.from(boundTo, 'utf8'));
    decipher.setAuthTag(raw.subarray(12, 28));
    return Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8');
  } catch {
    throw new SecretKeyError(`TOLK_SECRET_KEY does not decrypt the password of trunk ${boundTo}: it is not the key the password was stored with`);
  }
}
