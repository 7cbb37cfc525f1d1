import { hashPassword as scryptHash } from "better-auth/crypto";
import { hashPassword as pbkdf2Hash } from "../../domain/crypto/passwords.ts";

// A Worker that only hashes a password, for bench/sign-in/run.ts: workerd's CPU per request for
// opsroom's PBKDF2 (100 000 iterations of SHA-256, WebCrypto) and for better-auth's default
// (scrypt N=16384 r=16 p=1 through node:crypto, which workerd runs natively), beside a request
// that does nothing. Never deployed.
export default {
  async fetch(request: Request): Promise<Response> {
    const { pathname } = new URL(request.url);
    if (pathname === "/pbkdf2") return new Response(await pbkdf2Hash("correct horse battery staple"));
    if (pathname === "/scrypt") return new Response(await scryptHash("correct horse battery staple"));
    return new Response("ok");
  },
};
