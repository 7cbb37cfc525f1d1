import { createHash } from "node:crypto";
import { randomBase62 } from "./api-keys.ts";
import { sha256Hex } from "./hash.ts";

// The credentials of OAuth applications (docs/apps.md "Credentials"). Each kind has a prefix, so
// the bearer middleware tells an access token from an API key without a lookup and secret
// scanners recognise them; all but the client id are stored as their SHA-256 only, like keys.

export const CREDENTIAL_PREFIXES = {
  clientSecret: "opsroom_cs_",
  accessToken: "opsroom_at_",
  refreshToken: "opsroom_rt_",
  code: "opsroom_ac_",
} as const;
export type CredentialKind = keyof typeof CREDENTIAL_PREFIXES;

/** 43 base62 characters: 256 bits. */
const SECRET_LENGTH = 43;
const CREDENTIAL_PATTERNS = Object.fromEntries(
  Object.entries(CREDENTIAL_PREFIXES).map(([kind, prefix]) => [kind, new RegExp(`^${prefix}[0-9A-Za-z]{${SECRET_LENGTH}}$`)]),
) as Record<CredentialKind, RegExp>;

/** A new secret of its kind: its prefix and 256 random bits. */
export const generateCredential = (kind: CredentialKind) => CREDENTIAL_PREFIXES[kind] + randomBase62(SECRET_LENGTH);

/** Whether `value` has exactly the shape of a `kind` credential (checked before any lookup). */
export const isCredential = (kind: CredentialKind, value: string) => CREDENTIAL_PATTERNS[kind].test(value);

/** SHA-256 of a credential, hex: the only form in which one is stored or looked up. */
export const hashCredential = (value: string) => sha256Hex(value);

/** A client id: "app_" and 22 base62 characters (public, stored as it is). */
export const generateClientId = () => `app_${randomBase62(22)}`;
export const CLIENT_ID_PATTERN = /^app_[0-9A-Za-z]{22}$/;

/** RFC 7636 §4.1: 43 to 128 characters of [A-Z a-z 0-9 - . _ ~]. */
const VERIFIER = /^[A-Za-z0-9\-._~]{43,128}$/;
/** An S256 challenge: the unpadded base64url of a SHA-256, 43 characters. */
export const S256_CHALLENGE = /^[A-Za-z0-9_-]{43}$/;

/** Whether `verifier` has RFC 7636's shape (a verifier of any other can match no challenge). */
export const isCodeVerifier = (verifier: string) => VERIFIER.test(verifier);

/** RFC 7636 §4.6, S256 (the only method): BASE64URL(SHA256(verifier)), which the stored challenge must equal. */
export const s256ChallengeOf = (verifier: string) => createHash("sha256").update(verifier).digest("base64url");
