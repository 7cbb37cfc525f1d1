import { secretsEqual } from "./secrets.ts";

// Password hashing for better-auth's email and password accounts (functions/auth/auth.ts and the
// CLI's `opsroom user create`): PBKDF2-HMAC-SHA256 through WebCrypto, which Workers run natively.
// better-auth's default (scrypt in JavaScript, @noble/hashes) costs tens of milliseconds of CPU per
// sign-in in workerd (docs/people.md "Passwords"). Workers allow at most 100 000 PBKDF2 iterations,
// so that is the count; the format names it, so a later count can verify older hashes.
//
//   pbkdf2-sha256$<iterations>$<salt, base64>$<derived key, base64>

export const PBKDF2_ITERATIONS = 100_000;
/** Shorter passwords are refused at sign-up and by the CLI. */
export const MIN_PASSWORD_LENGTH = 10;
const SALT_BYTES = 16;
const KEY_BITS = 256;
const FORMAT = /^pbkdf2-sha256\$(\d{1,7})\$([A-Za-z0-9+/=]+)\$([A-Za-z0-9+/=]+)$/;

const base64 = (bytes: Uint8Array) => btoa(String.fromCharCode(...bytes));
const unbase64 = (text: string) => Uint8Array.from(atob(text), (c) => c.charCodeAt(0));

async function derive(password: string, salt: Uint8Array<ArrayBuffer>, iterations: number): Promise<Uint8Array> {
  const material = await crypto.subtle.importKey("raw", new TextEncoder().encode(password.normalize("NFKC")), "PBKDF2", false, [
    "deriveBits",
  ]);
  const bits = await crypto.subtle.deriveBits({ name: "PBKDF2", hash: "SHA-256", salt, iterations }, material, KEY_BITS);
  return new Uint8Array(bits);
}

export async function hashPassword(password: string): Promise<string> {
  const salt = crypto.getRandomValues(new Uint8Array(SALT_BYTES));
  return `pbkdf2-sha256$${PBKDF2_ITERATIONS}$${base64(salt)}$${base64(await derive(password, salt, PBKDF2_ITERATIONS))}`;
}

/** Whether `password` matches `hash`; false (never a throw) for a hash of another format. */
export async function verifyPassword({ hash, password }: { hash: string; password: string }): Promise<boolean> {
  const match = FORMAT.exec(hash);
  if (!match) return false;
  const iterations = Number(match[1]);
  if (iterations < 1 || iterations > PBKDF2_ITERATIONS) return false;
  const derived = await derive(password, unbase64(match[2]!), iterations);
  return secretsEqual(base64(derived), match[3]!);
}

/** A password for a person created by the CLI or the dev seed: 20 characters of 56 unambiguous ones (116 bits). */
export function generatePassword(): string {
  const alphabet = "ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz23456789";
  let out = "";
  while (out.length < 20) {
    for (const byte of crypto.getRandomValues(new Uint8Array(32))) {
      if (byte < 224 && out.length < 20) out += alphabet[byte % 56];
    }
  }
  return out;
}
