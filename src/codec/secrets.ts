/**
 * What the console and the codec server share so that neither starts open by accident:
 * a secret must be long enough (an empty one is what `--token "ana:$ANA_SECRET"` gives
 * when the variable is unset, and it would match an empty cookie), generated secrets are
 * random, secrets are compared in constant time, and loopback is told apart from the rest
 * both for the address a server binds and for the Host name a request is addressed to.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { hostname as machineName, networkInterfaces } from 'node:os';

/** Shorter secrets are refused: 16 random characters are far beyond guessing over HTTP. */
export const MIN_SECRET_LENGTH = 16;

/** A random secret for a console session or a codec server (32 URL-safe characters). */
export const generateSecret = (): string => randomBytes(24).toString('base64url');

const digest = (s: string) => createHash('sha256').update(s).digest();
/** Constant-time comparison (on sha256 hashes, so lengths do not leak); undefined never matches. */
export const sameSecret = (given: string | undefined, expected: string): boolean =>
  given !== undefined && timingSafeEqual(digest(given), digest(expected));

/**
 * Why `secret` may not be used, or null. `what` names it as the person typed it
 * (`the secret of ana in --token`), `example` how it is usually given.
 */
export function secretProblem(secret: string, what: string, example = '--token "ana:$ANA_SECRET"'): string | null {
  if (secret.trim() === '')
    return `${what} is empty: the variable it was made from was probably unset (${example} gives an empty secret when the variable is unset or empty); set it to a random value, e.g. openssl rand -hex 16`;
  if (/\s/.test(secret)) return `${what} holds white space: give a secret without spaces (openssl rand -hex 16)`;
  if (secret.length < MIN_SECRET_LENGTH)
    return `${what} is ${secret.length} characters long: give at least ${MIN_SECRET_LENGTH} random ones (openssl rand -hex 16)`;
  return null;
}

const LOOPBACK_NAME = /^(localhost|127\.\d{1,3}\.\d{1,3}\.\d{1,3}|\[::1\]|::1)$/i;
/** A Host name (or bind address) that only this machine reaches. */
export const isLoopbackName = (hostname: string): boolean => LOOPBACK_NAME.test(hostname);

/** The host name of a Host header (`[::1]:8888` → `[::1]`, `Example.COM:80` → `example.com`), or null. */
export function hostnameOf(host: string | undefined): string | null {
  if (!host) return null;
  const m = /^(\[[^\]]+\]|[^:]+)(?::\d+)?$/.exec(host.trim());
  return m ? m[1]!.toLowerCase() : null;
}

/**
 * The Host names a server bound to `bind` answers: loopback names; beyond loopback also
 * the bound address, the machine's own addresses and name (all of them for 0.0.0.0 / ::),
 * and `extra` (the names a reverse proxy or DNS gives it). Anything else is a rebound DNS
 * name or a request meant for another server.
 */
export function allowedHostNames(bind: string, extra: readonly string[] = []): Set<string> {
  const names = new Set(['localhost', '127.0.0.1', '[::1]']);
  if (!isLoopbackName(bind)) {
    names.add(bracketed(bind));
    names.add(machineName().toLowerCase());
    for (const list of Object.values(networkInterfaces()))
      for (const a of list ?? []) names.add(bracketed(a.address.split('%')[0]!));
  }
  for (const name of extra) names.add(bracketed(name.trim().toLowerCase()));
  return names;
}

const bracketed = (address: string) =>
  address.includes(':') && !address.startsWith('[') ? `[${address}]` : address.toLowerCase();

/** Whether a request's Host header names one of `allowed` (127.x.y.z count as loopback too). */
export function hostAllowed(host: string | undefined, allowed: ReadonlySet<string>): boolean {
  const name = hostnameOf(host);
  return name !== null && (allowed.has(name) || isLoopbackName(name));
}
