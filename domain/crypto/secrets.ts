const encoder = new TextEncoder();

/** Compares two secrets in time independent of where they differ. */
export function secretsEqual(a: string, b: string): boolean {
  const left = encoder.encode(a);
  const right = encoder.encode(b);
  let difference = left.length ^ right.length;
  for (let i = 0; i < Math.max(left.length, right.length); i++) difference |= (left[i] ?? 0) ^ (right[i] ?? 0);
  return difference === 0;
}

/** The bearer token of an Authorization header, or "". */
export function bearerToken(header: string | null | undefined): string {
  return /^Bearer\s+(\S+)$/i.exec(header ?? "")?.[1] ?? "";
}
